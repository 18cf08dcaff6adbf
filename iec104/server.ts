// IEC 60870-5-104 over mutual TLS per IEC 62351-3 on IEC104_PORT (2404), behind the listener every SCADA protocol
// shares (integrations/master-listener.ts: TLS 1.2 at least, the certificate mapped to exactly one integration
// of kind iec104, handshake and connection caps). Each integration has one Iec104Outstation that outlives
// connections, and its connections are one redundancy group (docs/decisions.md#iec-104-redundancy): up to
// GROUP_CONNECTIONS open at once, the one that started data transfer receiving events, the others standing by.
import type { Socket } from 'node:net';
import { startOutstationPorts, type OutstationListenerSettings } from '../integrations/master-ports.js';
import type { MasterTlsMaterial } from '../integrations/master-listener.js';
import type { RefusalReason } from './diagnostics/reasons.js';
import type { Iec104Integration } from './identity.js';
import { iec104Metrics } from './metrics.js';
import type { Iec104Outstation } from './outstation.js';
import { Iec104Session, type Iec104SessionOptions } from './session.js';

/** Connections of one redundancy group open at once; a new one beyond closes the oldest standing by. */
export const GROUP_CONNECTIONS = 4;

export type Iec104TlsMaterial = MasterTlsMaterial;

/** The listener's settings (integrations/master-ports.ts OutstationListenerSettings), then the station's own. */
export interface Iec104ServerOptions extends OutstationListenerSettings<Iec104Integration> {
  tls: Iec104TlsMaterial;
  outstationFor: (integration: Iec104Integration) => Iec104Outstation;
  session?: Pick<Iec104SessionOptions, 'tickMs' | 'clock' | 'onClockSync' | 'onTraffic'>;
  /** Refused by the station; `first`: the first of its reason on this connection (the one worth a log line). */
  onRefusal?: (integration: Iec104Integration, reason: RefusalReason, first: boolean) => void;
  onSession?: (integration: Iec104Integration, session: Iec104Session) => void;
}

export interface Iec104Server {
  port: number;
  /** Open connections per integration (its redundancy group), oldest first. */
  groups: ReadonlyMap<string, readonly Iec104Session[]>;
  /** The integrations changed: open and close dedicated ports, trust their CAs now, cut off masters they no longer admit (MasterListener.reload). */
  reload(): Promise<void>;
  close(): Promise<void>;
}

export async function startIec104Server(opts: Iec104ServerOptions): Promise<Iec104Server> {
  const groups = new Map<string, Iec104Session[]>();
  // Every configured integration is a series from the start, so "no master connected" can alert before the first connection.
  for (const integration of opts.integrations()) iec104Metrics.sessions.set({ integration: integration.id }, 0);
  /** 1 while a connection of the group delivers events (a displaced one stops after its successor started). */
  const active = (integration: Iec104Integration) => iec104Metrics.sessions.set({ integration: integration.id }, (groups.get(integration.id) ?? []).some((s) => s.isActive) ? 1 : 0);

  const attach = (socket: Socket, integration: Iec104Integration) => {
    const group = groups.get(integration.id) ?? [];
    groups.set(integration.id, group);
    // A master that vanished without closing holds a slot until t1/t3 notice; a new connection takes it.
    if (group.length >= GROUP_CONNECTIONS) group.find((s) => !s.isActive)?.close('replaced by a new connection of the redundancy group');
    const seen = new Set<RefusalReason>();
    const session = new Iec104Session(socket, opts.outstationFor(integration), {
      ...opts.session,
      timers: integration.timers,
      onRefusal: (reason) => {
        const first = !seen.has(reason);
        seen.add(reason);
        opts.onRefusal?.(integration, reason, first);
      },
      onActive: () => active(integration),
      onClose: () => {
        const i = group.indexOf(session);
        if (i >= 0) group.splice(i, 1);
        active(integration);
      },
    });
    group.push(session);
    opts.onSession?.(integration, session);
  };

  const listeners = await startOutstationPorts<Iec104Integration>({ ...opts, protocol: 'iec104', transport: { tls: opts.tls }, onMaster: attach });
  return {
    port: listeners.shared.port,
    groups,
    reload: () => listeners.reload(),
    close: () => {
      for (const group of groups.values()) for (const s of [...group]) s.close('server closing');
      return listeners.close();
    },
  };
}
