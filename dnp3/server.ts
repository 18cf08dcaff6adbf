// DNP3 over mutual TLS (node:tls) on DNP3_PORT (20000). The client certificate is verified in the handshake
// (no certificate or an untrusted one: the handshake fails) and then mapped to exactly one integration before
// a session exists; a master that maps to none is disconnected before a single
// DNP3 octet is read. Each integration has one Outstation per bank (its organisation's points and events,
// BANK_SLOTS devices each, at link addresses outstationAddress, +1, ...) that outlive connections; one
// connection serves all of them (multi-drop), and a reconnecting master replaces its previous session.
//
// Strangers cannot tie it up (docs/decisions.md#dnp3-listener-limits): TLS handshakes in progress are capped in
// all and per address (an IPv6 /64 counts as one), a handshake not finished in time is cut, and connections
// are capped in all; a connection over a cap is closed at once, before any TLS work.
import { createServer as createTlsServer } from 'node:tls';
import type { TLSSocket, TlsOptions } from 'node:tls';
import { createServer as createNetServer, isIPv6 } from 'node:net';
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

export interface Dnp3ConnectionLimits {
  /** TLS handshakes in progress at once. */
  handshakes: number;
  /** TLS handshakes in progress at once from one address (an IPv6 /64). */
  handshakesPerAddress: number;
  /** A handshake not finished after this is cut (Node's own default is 120 s). */
  handshakeTimeoutMs: number;
  /** Open connections at once, sessions and handshakes together. */
  connections: number;
}

export const DEFAULT_CONNECTION_LIMITS: Dnp3ConnectionLimits = { handshakes: 64, handshakesPerAddress: 8, handshakeTimeoutMs: 10_000, connections: 256 };

/** What the per-address cap counts: the address, or its /64 for IPv6 (one host may hold a whole /64). */
export function addressKey(address: string | undefined): string {
  if (!address) return '?';
  const plain = address.replace(/^::ffff:(?=\d+\.)/i, '');
  if (!isIPv6(plain)) return plain;
  const [head = '', tail = ''] = plain.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = plain.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`;
}

export type Dnp3Refusal = IdentityRefusal | 'handshake' | 'busy';

export interface Dnp3ServerOptions {
  port: number;
  host?: string;
  /** Defaults: DEFAULT_CONNECTION_LIMITS. */
  limits?: Partial<Dnp3ConnectionLimits>;
  /** TLS material; or `{ plainIntegrationId }` for plain TCP, development only, one integration. */
  transport: { tls: Dnp3TlsMaterial } | { plainIntegrationId: string };
  integrations: () => readonly Dnp3Integration[];
  /** The integration's outstations, index = bank (bank b answers at outstationAddress + b); asked on every frame and tick. */
  outstationsFor: (integration: Dnp3Integration) => readonly Outstation[];
  session?: SessionOptions;
  /** `busy`: over a connection or handshake cap, closed before any TLS work; detail: the address counted. */
  onRefused?: (reason: Dnp3Refusal, detail?: string) => void;
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

/**
 * The caps on TLS handshakes in progress, in all and per remote address: a connection over one is closed
 * (reported `busy`) before the TLS server sees it. Handshakes are keyed by remote address and port (the TLS
 * socket's and the TCP socket's are the same).
 */
function handshakeGate(limits: Dnp3ConnectionLimits, onRefused: Dnp3ServerOptions['onRefused']) {
  const handshaking = new Map<string, () => void>();
  const perAddress = new Map<string, number>();
  const overCap = new Set<string>();
  const keyOf = (socket: Socket) => `${socket.remoteAddress}|${socket.remotePort}`;
  return {
    /** A new TCP connection: counted, or closed when over a cap. */
    admit(raw: Socket): void {
      const address = addressKey(raw.remoteAddress);
      const key = keyOf(raw);
      if (handshaking.size >= limits.handshakes || (perAddress.get(address) ?? 0) >= limits.handshakesPerAddress) {
        onRefused?.('busy', address);
        overCap.add(key);
        raw.once('close', () => setImmediate(() => overCap.delete(key)));
        raw.destroy();
        return;
      }
      perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
      const done = () => {
        if (!handshaking.delete(key)) return;
        const left = (perAddress.get(address) ?? 1) - 1;
        if (left > 0) perAddress.set(address, left); else perAddress.delete(address);
      };
      handshaking.set(key, done);
      raw.once('close', done);
    },
    /** The handshake ended (done or failed): it no longer counts. */
    handshakeDone: (socket: Socket): void => handshaking.get(keyOf(socket))?.(),
    /** Whether this socket was closed for a cap (then it was reported already); forgets it. */
    closedForCap: (socket: Socket): boolean => overCap.delete(keyOf(socket)),
  };
}

export async function startDnp3Server(opts: Dnp3ServerOptions): Promise<Dnp3Server> {
  const sessions = new Map<string, OutstationSession>();
  const sockets = new Set<Socket>();
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...opts.limits };
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
      handshakeTimeout: limits.handshakeTimeoutMs,
    };
    const gate = handshakeGate(limits, opts.onRefused);
    const tlsServer = createTlsServer(tlsOptions, (socket: TLSSocket) => {
      gate.handshakeDone(socket);
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
    // With a listener here Node leaves closing to it (a timed-out handshake would otherwise stay open).
    tlsServer.on('tlsClientError', (err, socket) => {
      gate.handshakeDone(socket);
      socket.destroy();
      // A connection closed for a cap was reported as `busy` already.
      if (!gate.closedForCap(socket)) opts.onRefused?.('handshake', err.message);
    });
    // Before the TLS server wraps the socket: one over a cap costs no TLS work at all.
    tlsServer.prependListener('connection', gate.admit);
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
  server.maxConnections = limits.connections;
  server.on('drop', (d) => opts.onRefused?.('busy', addressKey(d?.remoteAddress)));
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
