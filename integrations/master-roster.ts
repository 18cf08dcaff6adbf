// The integrations a SCADA master listener serves, read again whenever they change
// (docs/decisions.md#scada-master-identity-and-listener): `faultline import` and the admin API write the
// `integrations` table, whose statement trigger NOTIFYs `integrations_change` (migration 0022); SIGHUP asks too;
// a minute's tick is the fallback for a lost notification. Each round reads the protocol's enabled integrations,
// re-reads their certificate files (an integration whose file cannot be read is left out, not the round) and hands
// the list to the protocol, which starts and stops what differs and calls the listener's reload().
import type pg from 'pg';
import { log } from '../config/log.js';
import { startWakeups } from '../db/wakeups.js';
import type { MasterProtocol } from './master-listener.js';
import { namesClaimedByOthers } from './master-certificate.js';
import { masterMetrics } from './master-metrics.js';
import { resolveCertificates, type IntegrationRow, type MasterSettings } from './master-settings.js';
import { readIntegrations } from './store.js';

/**
 * The protocol's enabled integrations with their certificate files read. One whose file cannot be read or parsed
 * is left out (logged with the integration and the file, counted in the gauge): it is not admitted this round, so a
 * reload cuts its open masters off, while the others load as usual. Throwing instead would keep the old list, old
 * CAs and pins included, in force for everybody: a revocation by deleting a file would fail open. One whose pinned
 * certificate now names another organisation's master identity (the file swapped after the import, which checked
 * it) is left out the same way (docs/decisions.md#pins-checked-at-load).
 */
export async function loadMasterIntegrations<I extends MasterSettings>(pool: pg.Pool, protocol: MasterProtocol, fromRow: (row: IntegrationRow) => I | undefined): Promise<I[]> {
  const rows = await readIntegrations(pool, { kind: protocol, enabledOnly: false });
  // Every claim of the kind, enabled or not, as the import counts them (reference-data/master-claims.ts).
  const claims = rows.flatMap((r) => (typeof r.settings.masterIdentity === 'string' ? [{ organizationId: r.OrganizationID, masterIdentity: r.settings.masterIdentity }] : []));
  const admitted: I[] = [];
  let unreadable = 0;
  for (const row of rows.filter((r) => r.enabled)) {
    const i = fromRow(row);
    if (!i) continue;
    const read = resolveCertificates(i);
    if (!('integration' in read)) {
      unreadable++;
      log.error({ component: protocol, integration: i.id, file: read.unreadable.file, problem: read.unreadable.problem }, 'SCADA master integration not admitted: its certificate file cannot be read');
      continue;
    }
    const taken = namesClaimedByOthers(read.integration, claims);
    if (taken.length > 0) {
      // The names, never the organisation that claims them nor the file's content.
      log.error({ component: protocol, integration: i.id, file: i.pinnedCertificateFile, names: taken },
        'SCADA master integration not admitted: its pinned certificate names a master identity another organisation claims (the file changed since the import?)');
      continue;
    }
    admitted.push(read.integration);
  }
  masterMetrics.unreadable.set({ protocol }, unreadable);
  return admitted;
}

/** How a protocol brings its running integrations to a list just read (applyRosterChanges). */
export interface RosterChangeOptions<I extends MasterSettings, R extends { integration: I }> {
  running: Map<string, R>;
  sameService: (was: I, now: I) => boolean;
  /** Opens and closes dedicated ports too (integrations/master-ports.ts), hence awaited. */
  reloadListener: () => void | Promise<void>;
  begin: (integration: I) => Promise<void>;
  end: (running: R) => Promise<void>;
}

export interface RosterOptions<I extends MasterSettings, R extends { integration: I }> extends RosterChangeOptions<I, R> {
  pool: pg.Pool;
  protocol: MasterProtocol;
  /** The protocol as its log line names it ('DNP3', 'IEC 104'). */
  label: string;
  /** The protocol's enabled integrations with their certificate files read (loadMasterIntegrations; a throw keeps the list as it was). */
  load: () => Promise<I[]>;
  /** Default one minute. */
  tickMs?: number;
}

export interface Roster {
  /** Read the integrations again now (tests; SIGHUP). */
  reload(): void;
  stop(): Promise<void>;
}

export function watchIntegrations<I extends MasterSettings, R extends { integration: I }>(o: RosterOptions<I, R>): Roster {
  const wakeups = startWakeups({
    pool: o.pool, channel: 'integrations_change', tickMs: o.tickMs ?? 60_000, component: o.protocol,
    step: async () => {
      const { added, removed, changed } = await applyRosterChanges({ ...o, now: await o.load() });
      if (added.length + removed.length + changed.length > 0) {
        log.info({ component: o.protocol, added: added.map((i) => i.id), removed: removed.map((i) => i.id), changed: changed.map((i) => i.id) }, `${o.label} integrations reloaded`);
      }
      return false;
    },
  });
  const onHup = () => {
    log.info({ component: o.protocol }, 'SIGHUP: reading SCADA master integrations again');
    wakeups.kick();
  };
  process.on('SIGHUP', onHup);
  return {
    reload: () => wakeups.kick(),
    async stop() {
      process.off('SIGHUP', onHup);
      await wakeups.stop();
    },
  };
}

/**
 * Brings a protocol's running integrations to the list just read: the listener first judges open masters against
 * the list without the removed ones (cut off, logged, counted), then their services stop, a changed one whose
 * service settings stay (`sameService`) takes the new certificate settings in place, one changed beyond them
 * starts again, and new ones start. What changed, for the log line.
 */
export async function applyRosterChanges<I extends MasterSettings, R extends { integration: I }>(o: RosterChangeOptions<I, R> & { now: readonly I[] }): Promise<{ added: I[]; removed: I[]; changed: I[] }> {
  const { running } = o;
  const changes = rosterChanges([...running.values()].map((r) => r.integration), o.now);
  const restart = changes.changed.filter((i) => {
    const was = running.get(i.id)!;
    const same = o.sameService(was.integration, i);
    if (same) was.integration = i;
    return !same;
  });
  const gone = changes.removed.map((i) => running.get(i.id)!);
  for (const i of changes.removed) running.delete(i.id);
  await o.reloadListener();
  for (const r of gone) await o.end(r);
  for (const i of restart) { await o.end(running.get(i.id)!); await o.begin(i); }
  for (const i of changes.added) await o.begin(i);
  if (changes.added.length + restart.length > 0) await o.reloadListener();
  return changes;
}

/** What differs between two lists by id: new, gone, and changed (any setting, certificate files included). */
export function rosterChanges<I extends MasterSettings>(before: readonly I[], after: readonly I[]): { added: I[]; removed: I[]; changed: I[] } {
  const old = new Map(before.map((i) => [i.id, i]));
  const ids = new Set(after.map((i) => i.id));
  const fingerprint = (i: I) => JSON.stringify({ ...i, pinnedCertificate: i.pinnedCertificate?.fingerprint256, issuerCas: i.issuerCas?.map((c) => c.fingerprint256) });
  return {
    added: after.filter((i) => !old.has(i.id)),
    removed: before.filter((i) => !ids.has(i.id)),
    changed: after.filter((i) => old.has(i.id) && fingerprint(old.get(i.id)!) !== fingerprint(i)),
  };
}
