// Runtime wiring: IEC 104 integrations from Postgres, one point feed per integration keeping its station current
// (points/feed.ts, the feed DNP3 uses: LISTEN/NOTIFY and a poll), the shared mutual-TLS listener in front. The
// start command calls startIec104Service (cli/iec104.ts); everything below it is testable alone.
import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { log } from '../config/log.js';
import { loadMasterIntegrations, watchIntegrations } from '../integrations/master-roster.js';
import { PointFeed, heartbeatValue } from '../points/feed.js';
import { PointPersistence } from '../points/persistence.js';
import { applyDevice, applyPowerLine } from './data/apply.js';
import { eventTiming } from './event-timing.js';
import { DiagnosticsLedger, UNATTRIBUTED } from '../integrations/diagnostics-ledger.js';
import { LISTENER_REASONS, REFUSAL_REASONS, type RefusalReason } from './diagnostics/reasons.js';
import { iec104IntegrationFromRow, type Iec104Integration } from './identity.js';
import { iec104Metrics } from './metrics.js';
import { Iec104Outstation } from './outstation.js';
import { startIec104Server, type Iec104Server, type Iec104ServerOptions } from './server.js';
import { DEFAULT_IEC104_PORT, type PortRange } from '../config/settings.js';

export interface Iec104ServiceOptions {
  pool: pg.Pool;
  /** IEC104_PORT, default 2404. Each dedicated port an integration names is opened too (docs/decisions.md#dedicated-master-ports). */
  port?: number;
  host?: string;
  /** The service's own fixed ports (config/settings.ts fixedPorts): never opened as an integration's dedicated port. */
  reserved?: ReadonlyMap<number, string>;
  /** SCADA_DEDICATED_PORTS (integrations/master-ports.ts). */
  range?: PortRange;
  /** PEM files of the service's SCADA certificate and the masters' CA (the DNP3 outstation's). */
  tlsFiles: { key: string; cert: string; ca: string };
  offlineAfterHours: number;
  /** CHECKIN_INTERVAL_FLOOR_MINUTES in seconds (the communication-lost rule, domain/checkin-clock.ts). */
  checkinFloorS?: number;
  onError?: (err: unknown) => void;
  onRefused?: Iec104ServerOptions['onRefused'];
  onRefusal?: Iec104ServerOptions['onRefusal'];
  /** NSS key-log lines (tshark in tests). Never in production. */
  onKeylog?: Iec104ServerOptions['onKeylog'];
}

export interface Iec104Service {
  server: Iec104Server;
  /** Each served integration's station, kept current across reloads. */
  outstations: ReadonlyMap<string, Iec104Outstation>;
  /** Read the integrations again now (as a NOTIFY or SIGHUP does). */
  reload(): void;
  close(): Promise<void>;
}

interface Running { integration: Iec104Integration; outstation: Iec104Outstation; feed: PointFeed; persistence: PointPersistence }

/** Enabled IEC 104 integrations with their certificate files read; one whose file cannot be read is left out (loadMasterIntegrations). */
export function loadIec104Integrations(pool: pg.Pool): Promise<Iec104Integration[]> {
  return loadMasterIntegrations(pool, 'iec104', iec104IntegrationFromRow);
}

/** The feed's target: the point model applied to one station (iec104/data/apply.ts). */
function stationFeed(opts: Iec104ServiceOptions, integration: Iec104Integration, outstation: Iec104Outstation): PointFeed {
  const { analogOnly } = integration;
  return new PointFeed({
    pool: opts.pool, organizationId: integration.organizationId, offlineAfterHours: opts.offlineAfterHours,
    ...(opts.checkinFloorS !== undefined ? { checkinFloorS: opts.checkinFloorS } : {}), ...(opts.onError ? { onError: opts.onError } : {}),
  }, {
    size: (maxSlot) => outstation.sizeBanks(maxSlot),
    device: (s, now, clock, origin) => applyDevice(outstation, s, now, clock, analogOnly, origin),
    powerLines: (lines, now) => lines.reduce((n, l) => n + applyPowerLine(outstation, l, now, analogOnly), 0),
    heartbeat: (now, startMs) => outstation.heartbeat(heartbeatValue(now, startMs), now),
  });
}

export async function startIec104Service(opts: Iec104ServiceOptions): Promise<Iec104Service> {
  const running = new Map<string, Running>();
  const outstations = new Map<string, Iec104Outstation>();
  const ledger = new DiagnosticsLedger<RefusalReason>(opts.pool, 'iec104', (err) => log.warn({ component: 'iec104', err: (err as Error).message }, 'IEC 104 refusal counts not written; kept for the next try'));
  ledger.start();
  const begin = async (integration: Iec104Integration) => {
    const outstation = new Iec104Outstation(integration.commonAddress);
    outstation.observer = eventTiming(opts.pool, integration);
    // Events not yet acknowledged and the image survive a restart (docs/decisions.md#iec-104-events-across-restarts).
    const persistence = new PointPersistence(opts.pool, integration.id, (err) => log.warn({ component: 'iec104', integration: integration.id, err: (err as Error).message }, 'IEC 104 events not saved yet; kept for the next try'));
    const restored = await persistence.load();
    outstation.persist(persistence, restored);
    persistence.start();
    const feed = stationFeed(opts, integration, outstation);
    await feed.start();
    outstation.settle();
    // A first start: the image the first load built is the reference a later restart compares with.
    if (restored.image.length === 0) persistence.saveImage(outstation.imagePoints());
    running.set(integration.id, { integration, outstation, feed, persistence });
    outstations.set(integration.id, outstation);
    iec104Metrics.sessions.set({ integration: integration.id }, 0);
  };
  let groupOf: (id: string) => readonly { close(reason: string): void }[] = () => [];
  const end = async (r: Running) => {
    running.delete(r.integration.id);
    outstations.delete(r.integration.id);
    for (const session of [...groupOf(r.integration.id)]) session.close('integration disabled or changed');
    // No longer served here: no "master disconnected" alert for it (a changed one's begin sets it again).
    iec104Metrics.sessions.remove({ integration: r.integration.id });
    await r.feed.stop();
    await r.persistence.stop();
  };
  for (const integration of await loadIec104Integrations(opts.pool)) await begin(integration);
  const server = await startIec104Server({
    port: opts.port ?? DEFAULT_IEC104_PORT,
    ...(opts.host ? { host: opts.host } : {}),
    ...(opts.reserved ? { reserved: opts.reserved } : {}),
    ...(opts.range ? { range: opts.range } : {}),
    tls: { key: readFileSync(opts.tlsFiles.key), cert: readFileSync(opts.tlsFiles.cert), ca: [readFileSync(opts.tlsFiles.ca)] },
    integrations: () => [...running.values()].map((r) => r.integration),
    outstationFor: (i) => running.get(i.id)!.outstation,
    // Diagnostics for the master's engineer (docs/decisions.md#master-diagnostics): every refusal counted for its
    // integration (a TLS refusal only when a trusted certificate named one); the listener logged it.
    onRefused: (refusal, detail, named, cutOff) => {
      ledger.count(named?.id ?? UNATTRIBUTED, LISTENER_REASONS[refusal]);
      opts.onRefused?.(refusal, detail, named, cutOff);
    },
    onRefusal: (integration, reason, first) => {
      iec104Metrics.refused.inc({ integration: integration.id, reason });
      ledger.count(integration.id, reason);
      if (first) log.warn({ component: 'iec104', integration: integration.id, reason }, `IEC 104 master: ${REFUSAL_REASONS[reason]}`);
      opts.onRefusal?.(integration, reason, first);
    },
    ...(opts.onKeylog ? { onKeylog: opts.onKeylog } : {}),
  });
  groupOf = (id) => server.groups.get(id) ?? [];
  // Integrations changed (docs/decisions.md#scada-master-identity-and-listener): a changed one whose station settings
  // stay gets the new certificate settings in place; the listener then cuts off masters no longer admitted.
  const roster = watchIntegrations({
    pool: opts.pool, protocol: 'iec104', label: 'IEC 104', load: () => loadIec104Integrations(opts.pool),
    running, begin, end, reloadListener: () => server.reload(),
    sameService: (was, i) => was.organizationId === i.organizationId && was.analogOnly === i.analogOnly
      && was.commonAddress === i.commonAddress && JSON.stringify(was.timers) === JSON.stringify(i.timers),
  });
  return {
    server,
    outstations,
    reload: () => roster.reload(),
    async close() {
      await roster.stop();
      await server.close();
      for (const r of running.values()) { await r.feed.stop(); await r.persistence.stop(); }
      await ledger.stop();
    },
  };
}
