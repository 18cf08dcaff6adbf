// The one listener for SCADA masters over mutual TLS (DNP3 on DNP3_PORT, IEC 104 per IEC 62351-3 on IEC104_PORT).
// The client certificate is verified in the handshake (no certificate or an untrusted one: the handshake fails)
// and then mapped to exactly one integration (master-certificate.ts) before the protocol sees a single octet;
// a master that maps to none is disconnected.
//
// Strangers cannot tie it up (docs/decisions.md#dnp3-listener-limits): TLS handshakes in progress are capped in
// all and per address (an IPv6 /64 counts as one), a handshake not finished in time is cut, and connections
// are capped in all; a connection over a cap is closed at once, before any TLS work.
import { createServer as createTlsServer } from 'node:tls';
import type { TLSSocket, TlsOptions } from 'node:tls';
import { createServer as createNetServer, isIPv6 } from 'node:net';
import type { X509Certificate } from 'node:crypto';
import type { Server, Socket } from 'node:net';
import { matchMaster, namedIntegrations, peerIdentity } from './master-certificate.js';
import type { IdentityRefusal, MasterCertificate } from './master-certificate.js';
import { certificatesIn } from './master-settings.js';

export interface MasterTlsMaterial {
  key: string | Buffer;
  cert: string | Buffer;
  /**
   * The service CA (DNP3_TLS_CA): it signs the masters of integrations without a caFile of their own. The
   * handshake trusts it plus each integration's CAs and pinned certificate (handshakeCas).
   */
  ca: (string | Buffer)[];
}

/** What the handshake trusts: the service CAs, every integration's CAs and pinned certificates (PEM). */
export function handshakeCas(serviceCas: readonly X509Certificate[], integrations: readonly MasterCertificate[]): string[] {
  const all = [...serviceCas, ...integrations.flatMap((i) => [...(i.issuerCas ?? []), ...(i.pinnedCertificate ? [i.pinnedCertificate] : [])])];
  return [...new Set(all.map((c) => c.toString()))];
}

export interface ConnectionLimits {
  /** TLS handshakes in progress at once. */
  handshakes: number;
  /** TLS handshakes in progress at once from one address (an IPv6 /64). */
  handshakesPerAddress: number;
  /** A handshake not finished after this is cut (Node's own default is 120 s). */
  handshakeTimeoutMs: number;
  /** Open connections at once, sessions and handshakes together. */
  connections: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { handshakes: 64, handshakesPerAddress: 8, handshakeTimeoutMs: 10_000, connections: 256 };

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

export type ListenerRefusal = IdentityRefusal | 'handshake' | 'busy';

export interface MasterListenerOptions<I extends MasterCertificate> {
  port: number;
  host?: string;
  /** Defaults: DEFAULT_CONNECTION_LIMITS. */
  limits?: Partial<ConnectionLimits>;
  /** TLS material; or `{ plainIntegrationId }` for plain TCP, development only, one integration. */
  transport: { tls: MasterTlsMaterial } | { plainIntegrationId: string };
  integrations: () => readonly I[];
  /** A master mapped to `integration`; the protocol takes the socket from here. */
  onMaster: (socket: Socket, integration: I) => void;
  /**
   * `busy`: over a connection or handshake cap, closed before any TLS work; detail: the address counted.
   * `named`: the one integration a trusted certificate named, when it was refused for it (pin, issuer, TLS version).
   */
  onRefused?: (reason: ListenerRefusal, detail?: string, named?: I) => void;
  /** NSS key-log lines, for decrypting test captures in tshark. Never enable in production. */
  onKeylog?: (line: Buffer) => void;
}

export interface MasterListener {
  port: number;
  /** Destroys every open connection and stops listening. */
  close(): Promise<void>;
}

/** The TLS server with the caps counted before it: the handshake map is keyed by remote address and port. */
function tlsListener<I extends MasterCertificate>(opts: MasterListenerOptions<I>, tls: MasterTlsMaterial, limits: ConnectionLimits): Server {
  const handshaking = new Map<string, () => void>();
  const perAddress = new Map<string, number>();
  const overCap = new Set<string>();
  const handshakeDone = (socket: Socket) => handshaking.get(`${socket.remoteAddress}|${socket.remotePort}`)?.();
  const serviceCas = tls.ca.flatMap((c) => certificatesIn(c));
  const tlsOptions: TlsOptions = {
    key: tls.key,
    cert: tls.cert,
    ca: handshakeCas(serviceCas, opts.integrations()),
    requestCert: true,
    rejectUnauthorized: true,
    // The floor for everyone (IEC 62351-3 too); an integration that demands 1.3 is checked after the handshake.
    minVersion: 'TLSv1.2',
    // A resumed session would skip the certificate we map from (opendnp3 disables resumption too).
    sessionTimeout: 0,
    handshakeTimeout: limits.handshakeTimeoutMs,
  };
  const server = createTlsServer(tlsOptions, (socket: TLSSocket) => {
    handshakeDone(socket);
    // The leaf alone: the chain the peer sent (getPeerCertificate(true)) decides nothing.
    const leaf = socket.getPeerX509Certificate();
    const peer = leaf ? peerIdentity(leaf) : undefined;
    const match = socket.authorized ? matchMaster(peer, socket.getProtocol(), opts.integrations(), opts.port, serviceCas) : { refused: 'noCertificate' as const };
    if ('refused' in match) {
      const named = peer && socket.authorized ? namedIntegrations(peer, opts.integrations(), opts.port) : [];
      opts.onRefused?.(match.refused, peer?.commonName, named.length === 1 ? named[0] : undefined);
      socket.destroy();
      return;
    }
    opts.onMaster(socket, match.integration);
  });
  // With a listener here Node leaves closing to it (a timed-out handshake would otherwise stay open).
  server.on('tlsClientError', (err, socket) => {
    handshakeDone(socket);
    socket.destroy();
    // A connection closed for a cap was reported as `busy` already.
    if (!overCap.delete(`${socket.remoteAddress}|${socket.remotePort}`)) opts.onRefused?.('handshake', err.message);
  });
  // Before the TLS server wraps the socket: one over a cap costs no TLS work at all.
  server.prependListener('connection', (raw: Socket) => {
    const address = addressKey(raw.remoteAddress);
    const key = `${raw.remoteAddress}|${raw.remotePort}`;
    if (handshaking.size >= limits.handshakes || (perAddress.get(address) ?? 0) >= limits.handshakesPerAddress) {
      opts.onRefused?.('busy', address);
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
  });
  if (opts.onKeylog) server.on('keylog', (line: Buffer) => opts.onKeylog?.(line));
  return server;
}

export async function startMasterListener<I extends MasterCertificate>(opts: MasterListenerOptions<I>): Promise<MasterListener> {
  const sockets = new Set<Socket>();
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...opts.limits };
  let server: Server;
  if ('tls' in opts.transport) {
    server = tlsListener(opts, opts.transport.tls, limits);
  } else {
    const id = opts.transport.plainIntegrationId;
    server = createNetServer((socket) => {
      const integration = opts.integrations().find((i) => i.id === id);
      if (!integration) { socket.destroy(); return; }
      opts.onMaster(socket, integration);
    });
  }
  server.maxConnections = limits.connections;
  server.on('drop', (d) => opts.onRefused?.('busy', addressKey(d?.remoteAddress)));
  server.on('connection', (s: Socket) => {
    // Both protocols write small frames; with Nagle's algorithm a tail waits for the master's delayed ACK
    // (40 ms on Linux) every time (bench/results/dnp3.md: 44 ms per fragment).
    s.setNoDelay(true);
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '0.0.0.0', () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : opts.port,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}
