// The one reader of the `integrations` table for the components that act on integrations (notify, the
// MultiSpeak delivery worker, the DNP3 outstation and its point map). Each applies its own kind's defaults to
// `settings` (multispeak/delivery/target.ts, dnp3/identity.ts); what the keys are is reference-data's
// (reference-data/integration-settings.ts), which writes them.
import type pg from 'pg';

/** The machine integrations an organisation may have (its import file's `integrations`). */
export type IntegrationKind = 'multispeak' | 'dnp3' | 'iec104';

export interface StoredIntegration {
  id: string;
  OrganizationID: string;
  /** The organisation's name (the MultiSpeak header's Company). */
  company: string;
  kind: IntegrationKind;
  channel: string;
  enabled: boolean;
  /** As imported: defaults are applied by the kind's consumer. */
  settings: Record<string, unknown>;
  /** MultiSpeak credentials, still encrypted. */
  credentials: { ciphertext: Buffer; keyId: string } | null;
  /**
   * When its claim on a SCADA master began (`claimed_at`, reset when the master identity, pin, caFile or
   * organisation changes, schemas/migrations/0025): of two organisations' claims on one name, the older wins.
   */
  claimedAt: Date;
}

export interface IntegrationFilter {
  kind?: IntegrationKind;
  id?: string;
  organizationId?: string;
  /** Default true: a disabled integration receives nothing. */
  enabledOnly?: boolean;
}

interface Row {
  id: string; OrganizationID: string; company: string; kind: IntegrationKind; channel: string; enabled: boolean;
  settings: unknown; credentials: Buffer | null; credentials_key_id: string | null; claimed_at: Date;
}

/** Integrations matching `filter`, by id. */
export async function readIntegrations(pool: pg.Pool, { kind, id, organizationId, enabledOnly = true }: IntegrationFilter): Promise<StoredIntegration[]> {
  const { rows } = await pool.query<Row>(
    `select i.id, i."OrganizationID", o.name as company, i.kind, i.channel, i.enabled, i.settings, i.credentials, i.credentials_key_id, i.claimed_at
       from integrations i join organizations o on o."OrganizationID" = i."OrganizationID"
      where ($1::text is null or i.kind = $1) and ($2::text is null or i.id = $2)
        and ($3::text is null or i."OrganizationID" = $3) and (i.enabled or not $4)
      order by i.id`,
    [kind ?? null, id ?? null, organizationId ?? null, enabledOnly],
  );
  return rows.map((r) => ({
    id: r.id, OrganizationID: r.OrganizationID, company: r.company, kind: r.kind, channel: r.channel, enabled: r.enabled,
    settings: r.settings && typeof r.settings === 'object' ? (r.settings as Record<string, unknown>) : {},
    credentials: r.credentials && r.credentials_key_id ? { ciphertext: r.credentials, keyId: r.credentials_key_id } : null,
    claimedAt: r.claimed_at,
  }));
}
