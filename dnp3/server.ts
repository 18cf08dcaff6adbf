// DNP3 over mutual TLS (node:tls) on DNP3_PORT (20000). The client certificate is verified in the handshake
// (no certificate or an untrusted one: the handshake fails) and then mapped to exactly one integration before
// a session exists; a master that maps to none is disconnected before a single
// DNP3 octet is read. Each integration has one Outstation per bank (its organisation's points and events,
// BANK_SLOTS devices each, at link addresses outstationAddress, +1, ...) that outlive connections; one
// connection serves all of them (multi-drop), and a reconnecting master replaces its previous session.
import { createServer as createTlsServer } from 'node:tls';
import type { TLSSocket, TlsOptions } from 'node:tls';
import { createServer as createNetServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { matchIntegration, peerIdentity } from './identity.js';
import type { Dnp3Integration, IdentityRefusal } from './identity.js';
import { dnp3Metrics } from './metrics.js';
import { OutstationSession } from './outstation/session.js';
import type { SessionOptions } from './outstation/session.js';
import type { Outstation } from './outstation/outstation.js';
import type { DiscardReason } from './diagnostics/reasons.js';

export const DEFAULT_DNP3_PORT = 20000;

export interface Dnp3TlsMaterial {
  key: string | Buffer;
  cert: string | Buffer;
  /** CAs that sign master certificates, plus any pinned (self-signed) master certificates. */
  ca: (string | Buffer)[];
}

export interface Dnp3ServerOptions {
  port: number;
  host?: string;
  /** TLS material; or `{ plainIntegrationId }` for plain TCP, development only, one integration. */
  transport: { tls: Dnp3TlsMaterial } | { plainIntegrationId: string };
  integrations: () => readonly Dnp3Integration[];
  /** The integration's outstations, index = bank (bank b answers at outstationAddress + b); asked on every frame and tick. */
  outstationsFor: (integration: Dnp3Integration) => readonly Outstation[];
  session?: SessionOptions;
  onRefused?: (reason: IdentityRefusal | 'handshake', detail?: string) => void;
  onSession?: (integration: Dnp3Integration, session: OutstationSession) => void;
  /** A discarded or refused frame or request; `first`: the first of its reason on this connection. */
  onDiscard?: (integration: Dnp3Integration, reason: DiscardReason, first: boolean) => void;
  /** NSS key-log lines, for decrypting test captures in tshark. Never enable in production. */
  onKeylog?: (line: Buffer) => void;
}

export interface Dnp3Server {
  port: number;
  sessions: ReadonlyMap<string, OutstationSession>;
  close(): Promise<void>;
}

export async function startDnp3Server(opts: Dnp3ServerOptions): Promise<Dnp3Server> {
  const sessions = new Map<string, OutstationSession>();
  const sockets = new Set<Socket>();
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

  let server: Server;
  if ('tls' in opts.transport) {
    const tlsOptions: TlsOptions = {
      ...opts.transport.tls,
      requestCert: true,
      rejectUnauthorized: true,
      // The floor for everyone; an integration that demands 1.3 (the default) is checked after the handshake.
      minVersion: 'TLSv1.2',
      // opendnp3 disables resumption too; a resumed session would skip the certificate we map from.
      sessionTimeout: 0,
    };
    const tlsServer = createTlsServer(tlsOptions, (socket: TLSSocket) => {
      const cert = socket.getPeerCertificate(true);
      const peer = cert && Object.keys(cert).length > 0 ? peerIdentity(cert) : undefined;
      const match = socket.authorized ? matchIntegration(peer, socket.getProtocol(), opts.integrations(), opts.port) : { refused: 'noCertificate' as const };
      if ('refused' in match) {
        opts.onRefused?.(match.refused, peer?.commonName);
        socket.destroy();
        return;
      }
      attach(socket, match.integration);
    });
    tlsServer.on('tlsClientError', (err) => opts.onRefused?.('handshake', err.message));
    if (opts.onKeylog) tlsServer.on('keylog', (line: Buffer) => opts.onKeylog?.(line));
    server = tlsServer;
  } else {
    const id = opts.transport.plainIntegrationId;
    server = createNetServer((socket) => {
      const integration = opts.integrations().find((i) => i.id === id);
      if (!integration) { socket.destroy(); return; }
      attach(socket, integration);
    });
  }
  server.on('connection', (s: Socket) => {
    // A response fragment goes out as several link frames; with Nagle's algorithm the tail waits for the
    // master's delayed ACK (40 ms on Linux) on every fragment (bench/results/dnp3.md: 44 ms per fragment).
    s.setNoDelay(true);
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '0.0.0.0', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;

  return {
    port,
    sessions,
    close: () => new Promise<void>((resolve) => {
      for (const s of sessions.values()) s.close('server closing');
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}
