// DNP3 over mutual TLS on DNP3_PORT (20000), behind the listener every SCADA protocol shares
// (integrations/master-listener.ts: certificate verified and mapped to exactly one integration, handshake and
// connection caps, docs/decisions.md#dnp3-listener-limits). Each integration has one Outstation per bank (its
// organisation's points and events, BANK_SLOTS devices each, at link addresses outstationAddress, +1, ...) that
// outlive connections; one connection serves all of them (multi-drop), and a reconnecting master replaces its
// previous session.
import type { Socket } from 'node:net';
import { startOutstationPorts, type OutstationListenerSettings } from '../integrations/master-ports.js';
import type { ConnectionLimits, ListenerRefusal, MasterTlsMaterial } from '../integrations/master-listener.js';
import type { Dnp3Integration } from './identity.js';
import { dnp3Metrics } from './metrics.js';
import { OutstationSession } from './outstation/session.js';
import type { SessionOptions } from './outstation/session.js';
import type { Outstation } from './outstation/outstation.js';
import type { DiscardReason } from './diagnostics/reasons.js';

export { DEFAULT_DNP3_PORT } from '../config/settings.js';
export { DEFAULT_CONNECTION_LIMITS } from '../integrations/master-listener.js';

export type Dnp3TlsMaterial = MasterTlsMaterial;
export type Dnp3ConnectionLimits = ConnectionLimits;
export type Dnp3Refusal = ListenerRefusal;

/** The listener's settings (integrations/master-ports.ts OutstationListenerSettings), then the outstation's own. */
export interface Dnp3ServerOptions extends OutstationListenerSettings<Dnp3Integration> {
  /** TLS material; or `{ plainIntegrationId }` for plain TCP, development only, one integration. */
  transport: { tls: Dnp3TlsMaterial } | { plainIntegrationId: string };
  /** The integration's outstations, index = bank (bank b answers at outstationAddress + b); asked on every frame and tick. */
  outstationsFor: (integration: Dnp3Integration) => readonly Outstation[];
  session?: SessionOptions;
  onSession?: (integration: Dnp3Integration, session: OutstationSession) => void;
  /** A discarded or refused frame or request; `first`: the first of its reason on this connection. */
  onDiscard?: (integration: Dnp3Integration, reason: DiscardReason, first: boolean) => void;
}

export interface Dnp3Server {
  port: number;
  sessions: ReadonlyMap<string, OutstationSession>;
  /** The integrations changed: open and close dedicated ports, trust their CAs now, cut off masters they no longer admit (MasterListener.reload). */
  reload(): Promise<void>;
  close(): Promise<void>;
}

export async function startDnp3Server(opts: Dnp3ServerOptions): Promise<Dnp3Server> {
  const sessions = new Map<string, OutstationSession>();
  // Every configured integration is a series from the start, so "no master connected" can alert before the first connection.
  for (const integration of opts.integrations()) dnp3Metrics.sessions.set({ integration: integration.id }, 0);

  const attach = (socket: Socket, integration: Dnp3Integration) => {
    sessions.get(integration.id)?.close('replaced by a new connection');
    const seen = new Set<DiscardReason>();
    const onDiscard = opts.onDiscard ? (reason: DiscardReason) => {
      const first = !seen.has(reason);
      seen.add(reason);
      opts.onDiscard!(integration, reason, first);
    } : undefined;
    const session = new OutstationSession(
      socket,
      { link: { address: integration.outstationAddress, masterAddress: integration.masterAddress } },
      () => opts.outstationsFor(integration),
      {
        ...opts.session,
        ...(onDiscard ? { onDiscard } : {}),
        onClose: (reason) => {
          if (sessions.get(integration.id) === session) {
            sessions.delete(integration.id);
            dnp3Metrics.sessions.set({ integration: integration.id }, 0);
          }
          opts.session?.onClose?.(reason);
        },
      },
    );
    sessions.set(integration.id, session);
    dnp3Metrics.sessions.set({ integration: integration.id }, 1);
    opts.onSession?.(integration, session);
  };

  const listeners = await startOutstationPorts<Dnp3Integration>({ ...opts, protocol: 'dnp3', onMaster: attach });
  return {
    port: listeners.shared.port,
    sessions,
    reload: () => listeners.reload(),
    close: () => {
      for (const s of sessions.values()) s.close('server closing');
      return listeners.close();
    },
  };
}
