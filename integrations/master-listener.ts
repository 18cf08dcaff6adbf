// The one listener for SCADA masters over mutual TLS (DNP3 on DNP3_PORT, IEC 104 per IEC 62351-3 on IEC104_PORT).
// The client certificate is verified in the handshake (no certificate or an untrusted one: the handshake fails)
// and then mapped to exactly one integration (master-certificate.ts: the leaf proved by signature to come from
// that integration's CA) before the protocol sees a single octet; a master that maps to none is disconnected.
// Every refusal is logged and counted here, for both protocols alike (faultline_scada_master_refused_total).
//
// Strangers cannot tie it up (docs/decisions.md#scada-master-identity-and-listener): TLS handshakes in progress are
// capped in all and per address (an IPv6 /64 counts as one), some handshake slots are kept for addresses that have
// completed a handshake as a known master, a connection without a ClientHello within a few seconds is cut (and a
// handshake not finished within 10 s), and connections are capped in all; a connection over a cap is closed at
// once, before any TLS work.
//
// `reload()` applies a changed integration list (master-service.ts calls it): the handshake trusts the new CAs,
// and every open connection is judged again; one its integration no longer admits is cut off.
import { createServer as createTlsServer } from 'node:tls';
import type { SecureContextOptions, TLSSocket } from 'node:tls';
import { createServer as createNetServer, isIPv6 } from 'node:net';
import type { Server, Socket } from 'node:net';
import type { X509Certificate } from 'node:crypto';
import { log } from '../config/log.js';
import { matchMaster, namedIntegrations, peerIdentity } from './master-certificate.js';
import type { IdentityRefusal, MasterCertificate, PeerIdentity } from './master-certificate.js';
import { masterMetrics } from './master-metrics.js';
import { certificatesIn } from './master-settings.js';

export type MasterProtocol = 'dnp3' | 'iec104';

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
  /** Of `handshakes`, the slots only addresses that completed a handshake as a known master may take. */
  knownMasterHandshakes: number;
  /** A connection that has sent no octet of its ClientHello this long after it opened is cut. */
  helloTimeoutMs: number;
  /** A TLS handshake not finished this long after the TCP connection is cut (Node's own default is 120 s). */
  handshakeTimeoutMs: number;
  /** Open connections at once, sessions and handshakes together. */
  connections: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { handshakes: 64, handshakesPerAddress: 8, knownMasterHandshakes: 16, helloTimeoutMs: 5_000, handshakeTimeoutMs: 10_000, connections: 256 };

/** Addresses remembered as known masters (the oldest forgotten past this). */
const KNOWN_MASTERS = 4096;

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
  /** Names the log lines and the metric's `protocol` label. */
  protocol: MasterProtocol;
  port: number;
  host?: string;
  /** Defaults: DEFAULT_CONNECTION_LIMITS. */
  limits?: Partial<ConnectionLimits>;
  /** TLS material; or `{ plainIntegrationId }` for plain TCP, development only, one integration. */
  transport: { tls: MasterTlsMaterial } | { plainIntegrationId: string };
  /** The integrations now; asked on every connection and on reload(). */
  integrations: () => readonly I[];
  /** A master mapped to `integration`; the protocol takes the socket from here. */
  onMaster: (socket: Socket, integration: I) => void;
  /**
   * After the refusal was logged and counted. `busy`: over a connection or handshake cap, closed before any TLS
   * work; detail: the address counted. `named`: the one integration a trusted certificate named, when it was
   * refused for it (pin, issuer, TLS version). `cutOff`: an open connection closed by reload().
   */
  onRefused?: (reason: ListenerRefusal, detail?: string, named?: I, cutOff?: boolean) => void;
  /** NSS key-log lines, for decrypting test captures in tshark. Never enable in production. */
  onKeylog?: (line: Buffer) => void;
}

export interface MasterListener {
  port: number;
  /** Trust the integrations' CAs as they are now and cut off every open master they no longer admit. */
  reload(): void;
  /** Destroys every open connection and stops listening. */
  close(): Promise<void>;
}

/** An open, mapped master connection, kept to judge it again on reload(). */
interface Admitted { socket: Socket; peer: PeerIdentity | undefined; protocol: string | null; integrationId: string }

/** Logs and counts a refusal, then tells the protocol. Busy refusals come in floods: one line per 10 s at most. */
function refusalReporter<I extends MasterCertificate>(opts: MasterListenerOptions<I>): NonNullable<MasterListenerOptions<I>['onRefused']> {
  let busySince = 0;
  let busyQuiet = 0;
  return (reason, detail, named, cutOff) => {
    masterMetrics.refused.inc({ protocol: opts.protocol, reason });
    const fields = { component: opts.protocol, reason, detail, ...(named ? { integration: named.id } : {}) };
    if (reason !== 'busy') {
      log.warn(fields, cutOff ? 'SCADA master cut off: its integration no longer admits it' : 'SCADA master connection refused');
    } else if (Date.now() - busySince >= 10_000) {
      log.warn({ ...fields, alsoRefused: busyQuiet }, 'SCADA master connection refused: over a connection or handshake cap');
      busySince = Date.now();
      busyQuiet = 0;
    } else {
      busyQuiet++;
    }
    opts.onRefused?.(reason, detail, named, cutOff);
  };
}

/** The TLS server with the caps counted before it: the handshake map is keyed by remote address and port. */
function tlsListener<I extends MasterCertificate>(
  opts: MasterListenerOptions<I>, tls: MasterTlsMaterial, limits: ConnectionLimits, refuse: ReturnType<typeof refusalReporter<I>>, admitted: Map<Socket, Admitted>,
): { server: Server; reload(): void } {
  const handshaking = new Map<string, () => void>();
  const perAddress = new Map<string, number>();
  let strangers = 0;
  const knownMasters = new Set<string>();
  /** Connections the listener closed itself and reported already (a cap, no ClientHello in time). */
  const reported = new Set<string>();
  const handshakeDone = (socket: Socket) => handshaking.get(`${socket.remoteAddress}|${socket.remotePort}`)?.();
  const serviceCas = tls.ca.flatMap((c) => certificatesIn(c));
  const context = (): SecureContextOptions => ({ key: tls.key, cert: tls.cert, ca: handshakeCas(serviceCas, opts.integrations()) });
  const judge = (peer: PeerIdentity | undefined, protocol: string | null) => matchMaster(peer, protocol, opts.integrations(), opts.port, serviceCas);
  const named = (peer: PeerIdentity | undefined): I | undefined => {
    const found = peer ? namedIntegrations(peer, opts.integrations(), opts.port) : [];
    return found.length === 1 ? found[0] : undefined;
  };

  const server = createTlsServer({
    ...context(),
    requestCert: true,
    rejectUnauthorized: true,
    // The floor for everyone (IEC 62351-3 too); an integration that demands 1.3 is checked after the handshake.
    minVersion: 'TLSv1.2',
    // A resumed session would skip the certificate we map from (opendnp3 disables resumption too).
    sessionTimeout: 0,
    handshakeTimeout: limits.handshakeTimeoutMs,
  }, (socket: TLSSocket) => {
    handshakeDone(socket);
    // The leaf alone: the chain the peer sent (getPeerCertificate(true)) decides nothing.
    const leaf = socket.getPeerX509Certificate();
    const peer = leaf ? peerIdentity(leaf) : undefined;
    const match = socket.authorized ? judge(peer, socket.getProtocol()) : { refused: 'noCertificate' as const };
    if ('refused' in match) {
      refuse(match.refused, peer?.commonName, socket.authorized ? named(peer) : undefined);
      socket.destroy();
      return;
    }
    // This address may now use the slots kept for known masters.
    const address = addressKey(socket.remoteAddress);
    knownMasters.delete(address);
    knownMasters.add(address);
    if (knownMasters.size > KNOWN_MASTERS) knownMasters.delete(knownMasters.values().next().value!);
    admitted.set(socket, { socket, peer, protocol: socket.getProtocol(), integrationId: match.integration.id });
    socket.once('close', () => admitted.delete(socket));
    opts.onMaster(socket, match.integration);
  });
  // With a listener here Node leaves closing to it (a timed-out handshake would otherwise stay open).
  server.on('tlsClientError', (err, socket) => {
    handshakeDone(socket);
    socket.destroy();
    // A connection closed for a cap or a late ClientHello was reported already.
    if (!reported.delete(`${socket.remoteAddress}|${socket.remotePort}`)) refuse('handshake', err.message);
  });
  // Before the TLS server wraps the socket: one over a cap costs no TLS work at all.
  server.prependListener('connection', (raw: Socket) => {
    const address = addressKey(raw.remoteAddress);
    const key = `${raw.remoteAddress}|${raw.remotePort}`;
    const known = knownMasters.has(address);
    const full = handshaking.size >= limits.handshakes || (perAddress.get(address) ?? 0) >= limits.handshakesPerAddress
      || (!known && strangers >= limits.handshakes - limits.knownMasterHandshakes);
    const closeReported = (reason: ListenerRefusal, detail: string) => {
      refuse(reason, detail);
      reported.add(key);
      raw.once('close', () => setImmediate(() => reported.delete(key)));
      raw.destroy();
    };
    if (full) {
      closeReported('busy', address);
      return;
    }
    // The ClientHello deadline, apart from the handshake's and from any protocol timer: a silent connection
    // holds its slot a few seconds at most. Judged after the next I/O poll (setImmediate): when a busy event loop
    // fires timers late, a ClientHello already waiting in the socket is read first.
    const hello = setTimeout(() => setImmediate(() => {
      if (raw.bytesRead === 0 && !raw.destroyed) closeReported('handshake', `no ClientHello from ${address} within ${limits.helloTimeoutMs} ms`);
    }), limits.helloTimeoutMs);
    hello.unref();
    raw.once('close', () => clearTimeout(hello));
    perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
    if (!known) strangers++;
    const done = () => {
      if (!handshaking.delete(key)) return;
      if (!known) strangers--;
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left); else perAddress.delete(address);
    };
    handshaking.set(key, done);
    raw.once('close', done);
  });
  if (opts.onKeylog) server.on('keylog', (line: Buffer) => opts.onKeylog?.(line));

  const reload = () => {
    server.setSecureContext(context());
    for (const a of [...admitted.values()]) {
      const match = judge(a.peer, a.protocol);
      if ('integration' in match && match.integration.id === a.integrationId) continue;
      admitted.delete(a.socket);
      a.socket.destroy();
      refuse('refused' in match ? match.refused : 'unknownIdentity', a.peer?.commonName, named(a.peer), true);
    }
  };
  return { server, reload };
}

export async function startMasterListener<I extends MasterCertificate>(opts: MasterListenerOptions<I>): Promise<MasterListener> {
  const sockets = new Set<Socket>();
  const admitted = new Map<Socket, Admitted>();
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...opts.limits };
  const refuse = refusalReporter(opts);
  let server: Server;
  let reload: () => void;
  if ('tls' in opts.transport) {
    ({ server, reload } = tlsListener(opts, opts.transport.tls, limits, refuse, admitted));
  } else {
    const id = opts.transport.plainIntegrationId;
    server = createNetServer((socket) => {
      const integration = opts.integrations().find((i) => i.id === id);
      if (!integration) { socket.destroy(); return; }
      admitted.set(socket, { socket, peer: undefined, protocol: null, integrationId: id });
      socket.once('close', () => admitted.delete(socket));
      opts.onMaster(socket, integration);
    });
    reload = () => {
      if (opts.integrations().some((i) => i.id === id)) return;
      for (const a of [...admitted.values()]) { a.socket.destroy(); refuse('unknownIdentity', id, undefined, true); }
    };
  }
  server.maxConnections = limits.connections;
  server.on('drop', (d) => refuse('busy', addressKey(d?.remoteAddress)));
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
    reload,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}
