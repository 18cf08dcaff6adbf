// The listeners one SCADA protocol keeps open (docs/decisions.md#dedicated-master-ports): its shared port
// (DNP3_PORT, IEC104_PORT) for the integrations without a `port`, and one more per distinct dedicated port among
// its enabled integrations, each serving only the integrations that name that port. Every listener is a
// master-listener.ts listener (same TLS, identity check, caps, refusal log and metrics); this module only decides
// which ports are open. reload() follows the integrations: a port newly named opens, a port no integration names
// any more closes (its connections cut). A dedicated port that cannot be opened (in use, or one of the service's
// own fixed ports, outside SCADA_DEDICATED_PORTS, or past the cap) is logged and counted, shuts out only the
// integrations naming it, and is tried again on the next reload.
import { log } from '../config/log.js';
import type { PortRange } from '../config/settings.js';
import type { MasterCertificate } from './master-certificate.js';
import { startMasterListener } from './master-listener.js';
import type { MasterListener, MasterListenerOptions, MasterProtocol } from './master-listener.js';
import { masterMetrics } from './master-metrics.js';

/**
 * The distinct dedicated ports the integrations name, ascending. The shared port is not one: an integration naming
 * it is served there like one without a port (namedIntegrations admits `port === the listener's port`).
 */
export function dedicatedPorts(integrations: readonly MasterCertificate[], sharedPort: number): number[] {
  const ports = new Set(integrations.flatMap((i) => (i.port !== undefined && i.port !== sharedPort ? [i.port] : [])));
  return [...ports].sort((a, b) => a - b);
}

/** What a dedicated port serves: the integrations naming it, no other (a port-less one is served on the shared port only). */
export function servedOn<I extends MasterCertificate>(integrations: readonly I[], port: number): I[] {
  return integrations.filter((i) => i.port === port);
}

/** At most this many dedicated ports per protocol: each is a listener with its own slots (docs/decisions.md#dedicated-master-ports). */
export const MAX_DEDICATED_PORTS = 32;

/**
 * Why a dedicated port may not be opened, or undefined: one of the service's own ports, outside the operator's
 * range (SCADA_DEDICATED_PORTS: an integration must not squat 5432 or the broker's port), or past the cap
 * (`opened`: the protocol's dedicated ports listening already; they keep listening, ports are opened ascending).
 */
export function dedicatedPortRefusal(port: number, opened: number, rules: { range?: PortRange; reserved?: ReadonlyMap<number, string> }): string | undefined {
  const reserved = rules.reserved?.get(port);
  if (reserved) return `it is ${reserved}`;
  if (rules.range && (port < rules.range.from || port > rules.range.to)) return `it is outside SCADA_DEDICATED_PORTS (${rules.range.from}-${rules.range.to})`;
  if (opened >= MAX_DEDICATED_PORTS) return `more than ${MAX_DEDICATED_PORTS} dedicated ports for one protocol`;
  return undefined;
}

export interface MasterPortsOptions<I extends MasterCertificate> {
  protocol: MasterProtocol;
  /** The shared port (0: any free one, tests). */
  port: number;
  /** The service's own fixed ports no integration may take (config/settings.ts fixedPorts), by port: its setting's name. */
  reserved?: ReadonlyMap<number, string>;
  /** SCADA_DEDICATED_PORTS: the service always passes it (cli/dnp3.ts, cli/iec104.ts); absent (tests): any port. */
  range?: PortRange;
  /** The protocol's integrations now. */
  integrations: () => readonly I[];
  /** Opens one listener on `port` serving `integrations` (startMasterListener with the protocol's own handlers). */
  open: (port: number, integrations: () => readonly I[]) => Promise<MasterListener>;
}

export interface MasterPorts {
  /** The shared listener. */
  shared: MasterListener;
  /** The dedicated ports listening now. */
  dedicated(): number[];
  /** The dedicated ports named but not listening, with why. */
  unbound(): ReadonlyMap<number, string>;
  /** Open and close dedicated ports to match the integrations, then reload every listener (MasterListener.reload). */
  reload(): Promise<void>;
  close(): Promise<void>;
}

export async function startMasterPorts<I extends MasterCertificate>(o: MasterPortsOptions<I>): Promise<MasterPorts> {
  const shared = await o.open(o.port, o.integrations);
  const open = new Map<number, MasterListener>();
  const unbound = new Map<number, string>();
  const sync = async () => {
    const wanted = dedicatedPorts(o.integrations(), shared.port);
    for (const [port, listener] of open) {
      if (wanted.includes(port)) continue;
      open.delete(port);
      await listener.close();
      log.info({ component: o.protocol, port }, 'SCADA master dedicated port closed: no enabled integration names it any more');
    }
    for (const port of unbound.keys()) if (!wanted.includes(port)) unbound.delete(port);
    for (const port of wanted) {
      if (open.has(port)) continue;
      const refused = dedicatedPortRefusal(port, open.size, o);
      const problem = refused ?? await o.open(port, () => servedOn(o.integrations(), port)).then(
        (listener) => { open.set(port, listener); return undefined; },
        (err: Error) => err.message,
      );
      if (problem === undefined) {
        unbound.delete(port);
        log.info({ component: o.protocol, port, integrations: servedOn(o.integrations(), port).map((i) => i.id) }, 'SCADA master dedicated port listening');
        continue;
      }
      // Once per port and problem: the reload tick tries again every minute.
      if (unbound.get(port) !== problem) {
        log.error({ component: o.protocol, port, problem, integrations: servedOn(o.integrations(), port).map((i) => i.id) }, 'SCADA master dedicated port cannot be opened: its integrations are not served until it can');
      }
      unbound.set(port, problem);
    }
    masterMetrics.unboundPorts.set({ protocol: o.protocol }, unbound.size);
    shared.reload();
    for (const listener of open.values()) listener.reload();
  };
  // One round at a time: a reload asked while one runs follows it.
  let rounds = Promise.resolve();
  const reload = () => (rounds = rounds.then(sync, sync));
  await reload();
  return {
    shared,
    dedicated: () => [...open.keys()].sort((a, b) => a - b),
    unbound: () => unbound,
    reload,
    async close() {
      await rounds.catch(() => undefined);
      await Promise.all([shared, ...open.values()].map((l) => l.close()));
      open.clear();
    },
  };
}

/**
 * What an outstation (dnp3/server.ts, iec104/server.ts) asks for: its ports as startMasterPorts opens them, each a
 * startMasterListener listener with the outstation's handlers. Written once here so the two protocols cannot drift.
 * Fields an outstation's own options carry beyond these are not passed on.
 */
export type OutstationPortsOptions<I extends MasterCertificate> =
  Omit<MasterPortsOptions<I>, 'open'> & Omit<MasterListenerOptions<I>, 'port' | 'integrations'>;

/** The listener settings an outstation's server takes from its caller as they are (dnp3/server.ts, iec104/server.ts). */
export type OutstationListenerSettings<I extends MasterCertificate> =
  Pick<OutstationPortsOptions<I>, 'port' | 'host' | 'reserved' | 'range' | 'limits' | 'integrations' | 'onRefused' | 'onKeylog'>;

export function startOutstationPorts<I extends MasterCertificate>(o: OutstationPortsOptions<I>): Promise<MasterPorts> {
  return startMasterPorts<I>({
    protocol: o.protocol, port: o.port, reserved: o.reserved, range: o.range, integrations: o.integrations,
    open: (port, integrations) => startMasterListener<I>({
      protocol: o.protocol, port, integrations, host: o.host, limits: o.limits, transport: o.transport,
      onMaster: o.onMaster, onRefused: o.onRefused, onKeylog: o.onKeylog,
    }),
  });
}
