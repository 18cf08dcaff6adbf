// A DNP3 integration's settings (docs/decisions.md#dnp3-outstation). The certificate model that maps a
// verified client certificate to one integration is shared with IEC 104: integrations/master-certificate.ts.
import { matchMaster, type MasterCertificate } from '../integrations/master-certificate.js';

export { peerIdentity, type IdentityRefusal, type PeerIdentity, type TlsMinVersion } from '../integrations/master-certificate.js';

export interface Dnp3Integration extends MasterCertificate {
  organizationId: string;
  outstationAddress: number;
  masterAddress: number;
  unsolicited: boolean;
  caFile?: string;
  pinnedCertificateFile?: string;
  analogOnly: boolean;
}

/** The integration a master may reach, or why it is refused (integrations/master-certificate.ts). */
export const matchIntegration = matchMaster<Dnp3Integration>;

const num = (v: unknown, dflt: number): number => (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffef ? v : dflt);

/** Validates an `integrations` row of kind dnp3 (settings jsonb is `unknown` until here). */
export function integrationFromRow(row: { id: string; OrganizationID: string; settings: unknown }): Dnp3Integration | undefined {
  const s = (row.settings && typeof row.settings === 'object' ? row.settings : {}) as Record<string, unknown>;
  if (typeof s.masterIdentity !== 'string' || s.masterIdentity === '') return undefined;
  const out: Dnp3Integration = {
    id: row.id,
    organizationId: row.OrganizationID,
    masterIdentity: s.masterIdentity,
    outstationAddress: num(s.outstationAddress, 10),
    masterAddress: num(s.masterAddress, 1),
    unsolicited: s.unsolicited !== false,
    tlsMinVersion: s.tlsMinVersion === 'TLSv1.2' || s.tlsMinVersion === '1.2' ? 'TLSv1.2' : 'TLSv1.3',
    certificateMode: s.certificateMode === 'pinned' ? 'pinned' : 'ca',
    analogOnly: s.analogOnly === true,
  };
  if (typeof s.caFile === 'string') out.caFile = s.caFile;
  if (typeof s.pinnedCertificateFile === 'string') out.pinnedCertificateFile = s.pinnedCertificateFile;
  if (typeof s.port === 'number' && Number.isInteger(s.port) && s.port > 0 && s.port < 65536) out.port = s.port;
  return out;
}
