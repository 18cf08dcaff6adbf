// Runtime wiring: DNP3 integrations from Postgres, one Postgres feed per integration keeping its outstations
// (one per bank of 8,000 slots) current, the TLS server in front. The start command calls startDnp3Service; everything below it is testable alone.
import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { integrationFromRow } from './identity.js';
import { loadMasterIntegrations, watchIntegrations } from '../integrations/master-roster.js';
import type { Dnp3Integration } from './identity.js';
import { Outstation, outstationConfigFor } from './outstation/outstation.js';
import { Dnp3Feed } from './data/feed.js';
import { DEFAULT_DNP3_PORT, startDnp3Server } from './server.js';
import type { Dnp3Server, Dnp3ServerOptions } from './server.js';
import { log } from '../config/log.js';
import { DISCARD_REASONS, type DiscardReason } from './diagnostics/reasons.js';
import { DiagnosticsLedger } from '../integrations/diagnostics-ledger.js';
import { eventTiming } from './event-timing.js';
import { dnp3Metrics } from './metrics.js';
import type { PortRange } from '../config/settings.js';

export interface Dnp3ServiceOptions {
  pool: pg.Pool;
  /** DNP3_PORT, default 20000. Each dedicated port an integration names is opened too (docs/decisions.md#dedicated-master-ports). */
  port?: number;
  host?: string;
  /** The service's own fixed ports (config/settings.ts fixedPorts): never opened as an integration's dedicated port. */
  reserved?: ReadonlyMap<number, string>;
  /** SCADA_DEDICATED_PORTS (integrations/master-ports.ts). */
  range?: PortRange;
  /** PEM file paths (DNP3_TLS_KEY, DNP3_TLS_CERT, DNP3_TLS_CA). Absent: plain TCP for `plainIntegrationId` only. */
  tlsFiles?: { key: string; cert: string; ca: string };
  /** Development only (DNP3_PLAIN_INTEGRATION): plain TCP, no certificate, one integration. */
  plainIntegrationId?: string;
  offlineAfterHours: number;
  /** CHECKIN_INTERVAL_FLOOR_MINUTES in seconds (the communication-lost rule, domain/checkin-clock.ts). */
  checkinFloorS?: number;
  onError?: (err: unknown) => void;
  onRefused?: Dnp3ServerOptions['onRefused'];
  /** After a discard was counted (and, the first of its reason on a connection, logged). */
  onDiscard?: Dnp3ServerOptions['onDiscard'];
}

interface Running { integration: Dnp3Integration; banks: Outstation[]; feed: Dnp3Feed }

/** Enabled DNP3 integrations with their certificate files read; one whose file cannot be read is left out (loadMasterIntegrations). */
export function loadIntegrations(pool: pg.Pool): Promise<Dnp3Integration[]> {
  return loadMasterIntegrations(pool, 'dnp3', integrationFromRow);
}

export async function startDnp3Service(opts: Dnp3ServiceOptions): Promise<{ server: Dnp3Server; reload(): void; close(): Promise<void> }> {
  const running = new Map<string, Running>();
  const ledger = new DiagnosticsLedger<DiscardReason>(opts.pool, 'dnp3', (err) => log.warn({ component: 'dnp3', err: (err as Error).message }, 'DNP3 discard counts not written; kept for the next try'));
  ledger.start();
  // The listener's session of an integration, once it is up: a feed refresh that produced events pokes it, so they
  // go out as unsolicited responses now rather than at the session's next tick.
  let sessionOf: (integrationId: string) => { poke(): void; close(reason: string): void } | undefined = () => undefined;
  const begin = async (integration: Dnp3Integration) => {
    // Grown by the feed as slots reach new banks; sessions read the same array.
    const banks: Outstation[] = [];
    const createOutstation = () => {
      const o = new Outstation(outstationConfigFor(integration));
      const bank = banks.length; // sizeBanks appends it next
      o.observer = eventTiming(opts.pool, integration, () => bank);
      return o;
    };
    const feed = new Dnp3Feed({
      pool: opts.pool, organizationId: integration.organizationId, banks, createOutstation,
      analogOnly: integration.analogOnly, offlineAfterHours: opts.offlineAfterHours,
      ...(opts.checkinFloorS !== undefined ? { checkinFloorS: opts.checkinFloorS } : {}), ...(opts.onError ? { onError: opts.onError } : {}),
      onRefresh: (events) => { if (events > 0) sessionOf(integration.id)?.poke(); },
    });
    await feed.start();
    running.set(integration.id, { integration, banks, feed });
    dnp3Metrics.sessions.set({ integration: integration.id }, 0);
  };
  const end = async (r: Running) => {
    running.delete(r.integration.id);
    sessionOf(r.integration.id)?.close('integration disabled or changed');
    await r.feed.stop();
  };
  for (const integration of await loadIntegrations(opts.pool)) await begin(integration);
  let transport: Dnp3ServerOptions['transport'];
  if (opts.tlsFiles) {
    transport = { tls: { key: readFileSync(opts.tlsFiles.key), cert: readFileSync(opts.tlsFiles.cert), ca: [readFileSync(opts.tlsFiles.ca)] } };
  } else if (opts.plainIntegrationId) {
    transport = { plainIntegrationId: opts.plainIntegrationId };
  } else {
    throw new Error('DNP3 needs TLS files (DNP3_TLS_KEY, DNP3_TLS_CERT, DNP3_TLS_CA); plain TCP only with DNP3_PLAIN_INTEGRATION');
  }
  const server = await startDnp3Server({
    port: opts.port ?? DEFAULT_DNP3_PORT,
    ...(opts.host ? { host: opts.host } : {}),
    ...(opts.reserved ? { reserved: opts.reserved } : {}),
    ...(opts.range ? { range: opts.range } : {}),
    transport,
    integrations: () => [...running.values()].map((r) => r.integration),
    outstationsFor: (i) => running.get(i.id)?.banks ?? [],
    ...(opts.onRefused ? { onRefused: opts.onRefused } : {}),
    // Diagnostics for the engineer at the other end (docs/decisions.md#dnp3-diagnostics): every discard counted,
    // the first of each reason on a connection logged with the sentence that says what the master must do.
    onDiscard: (integration, reason, first) => {
      dnp3Metrics.refused.inc({ integration: integration.id, reason });
      ledger.count(integration.id, reason);
      if (first) log.warn({ component: 'dnp3', integration: integration.id, reason }, `DNP3 master: ${DISCARD_REASONS[reason].text}`);
      opts.onDiscard?.(integration, reason, first);
    },
  });
  sessionOf = (id) => server.sessions.get(id);
  // Integrations changed (docs/decisions.md#scada-master-identity-and-listener): a changed one whose feed settings
  // stay gets the new certificate settings in place; the listener then cuts off masters no longer admitted.
  const roster = watchIntegrations({
    pool: opts.pool, protocol: 'dnp3', label: 'DNP3', load: () => loadIntegrations(opts.pool),
    running, begin, end, reloadListener: () => server.reload(),
    sameService: (was, i) => was.organizationId === i.organizationId && was.analogOnly === i.analogOnly
      && was.outstationAddress === i.outstationAddress && was.masterAddress === i.masterAddress && was.unsolicited === i.unsolicited,
  });
  return {
    server,
    reload: () => roster.reload(),
    async close() {
      await roster.stop();
      await server.close();
      for (const r of running.values()) await r.feed.stop();
      await ledger.stop();
    },
  };
}
