// The one listener for SCADA masters over mutual TLS (DNP3 on DNP3_PORT, IEC 104 per IEC 62351-3 on IEC104_PORT).
// The client certificate is verified in the handshake (no certificate or an untrusted one: the handshake fails)
// and then mapped to exactly one integration (master-certificate.ts: the leaf proved by signature to come from
// that integration's CA) before the protocol sees a single octet; a master that maps to none is disconnected.
// Every refusal is logged and counted here, for both protocols alike (faultline_scada_master_refused_total).
//
// Strangers cannot tie it up (docs/decisions.md#scada-master-identity-and-listener): TLS handshakes in progress are
// capped in all and per address (an IPv6 /64 counts as one), some handshake slots are kept for addresses that have
// completed a handshake as a known master, shared fairly between organisations (handshake-slots.ts), a connection
// without a ClientHello within a few seconds is cut (and a handshake not finished within 10 s), and connections are
// capped in all; a connection over a cap is closed at once, before any TLS work. No TLS session is ever resumed:
// every connection presents its certificate and is verified again (docs/decisions.md#scada-listener-slots-sessions-and-claims).
//
// `reload()` applies a changed integration list (master-service.ts calls it): the handshake trusts the new CAs,
// and every open connection is judged again; one its integration no longer admits is cut off.
import { createServer as createTlsServer } from 'node:tls';
import type { SecureContextOptions, TLSSocket } from 'node:tls';
import { createServer as createNetServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { constants, type X509Certificate } from 'node:crypto';
import { log } from '../config/log.js';
import { addressKey } from '../domain/ip-address.js';
import { HandshakeSlots, type SlotLimits } from './handshake-slots.js';
import { LogThrottle } from './log-throttle.js';
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

export interface ConnectionLimits extends SlotLimits {
  /** A connection that has sent no octet of its ClientHello this long after it opened is cut. */
  helloTimeoutMs: number;
  /** A TLS handshake not finished this long after the TCP connection is cut (Node's own default is 120 s). */
  handshakeTimeoutMs: number;
  /** Open connections at once, sessions and handshakes together. */
  connections: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  handshakes: 64, handshakesPerAddress: 8, knownMasterHandshakes: 16, knownPerAddress: 2, knownPerOwner: 4, knownForgetMs: 7 * 24 * 3600_000,
  helloTimeoutMs: 5_000, handshakeTimeoutMs: 10_000, connections: 256,
};

/** The organisation a master's address is counted for in the kept slots (an integration without one: itself). */
const ownerOf = (i: MasterCertificate): string => i.organizationId ?? i.id;

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

/** Logs and counts a refusal, then tells the protocol: `address` is the peer's remote address. */
type Refuse<I> = (reason: ListenerRefusal, address: string | undefined, detail?: string, named?: I, cutOff?: boolean) => void;

/**
 * Every refusal is counted; its log line comes once a minute per reason and address (addressKey) at most, with
 * the number left out since (`alsoRefused`): any reason can come in a flood. A cut-off (reload) is always logged:
 * there are at most as many as open connections.
 */
function refusalReporter<I extends MasterCertificate>(opts: MasterListenerOptions<I>, throttle = new LogThrottle()): Refuse<I> {
  return (reason, address, detail, named, cutOff) => {
    masterMetrics.refused.inc({ protocol: opts.protocol, reason });
    const from = addressKey(address);
    const line = cutOff ? { alsoRefused: 0, overBudget: 0, lastInWindow: false } : throttle.pass(`${reason}|${from}`, reason);
    if (line) {
      const { alsoRefused, overBudget, lastInWindow } = line;
      const fields = { component: opts.protocol, reason, address: from, detail, alsoRefused, overBudget, ...(named ? { integration: named.id } : {}) };
      log.warn(fields, cutOff ? 'SCADA master cut off: its integration no longer admits it'
        : (reason === 'busy' ? 'SCADA master connection refused: over a connection or handshake cap' : 'SCADA master connection refused')
          + (lastInWindow ? '; further refusals for this reason from any address are only counted this minute' : ''));
    }
    opts.onRefused?.(reason, detail, named, cutOff);
  };
}

/** The TLS server with the caps counted before it: the handshake map is keyed by remote address and port. */
function tlsListener<I extends MasterCertificate>(
  opts: MasterListenerOptions<I>, tls: MasterTlsMaterial, limits: ConnectionLimits, refuse: Refuse<I>, admitted: Map<Socket, Admitted>,
): { server: Server; reload(): void } {
  const handshaking = new Map<string, () => void>();
  const slots = new HandshakeSlots(limits);
  /** Connections the listener closed itself and reported already (a cap, no ClientHello in time). */
  const reported = new Set<string>();
  const handshakeDone = (socket: Socket) => handshaking.get(`${socket.remoteAddress}|${socket.remotePort}`)?.();
  const serviceCas = tls.ca.flatMap((c) => certificatesIn(c));
  const context = (): SecureContextOptions => ({
    key: tls.key, cert: tls.cert, ca: handshakeCas(serviceCas, opts.integrations()),
    // No allowPartialTrustChain: Node sets it before adding `ca` and loses it (20.20, 24.21), so a caFile with an
    // intermediate holds its root too (docs/decisions.md#scada-listener-slots-sessions-and-claims).
    // No session is resumed, neither by ticket nor by ID (Node ignores sessionTimeout: 0 for tickets): a resumed
    // session skips the certificate, so an expired or revoked one would ride it. Here, not in createServer's
    // options only: reload() replaces the whole context.
    secureOptions: constants.SSL_OP_NO_TICKET,
  });
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
    handshakeTimeout: limits.handshakeTimeoutMs,
  }, (socket: TLSSocket) => {
    handshakeDone(socket);
    // The leaf alone: the chain the peer sent (getPeerCertificate(true)) decides nothing.
    const leaf = socket.getPeerX509Certificate();
    const peer = leaf ? peerIdentity(leaf) : undefined;
    const match = socket.authorized ? judge(peer, socket.getProtocol()) : { refused: 'noCertificate' as const };
    if ('refused' in match) {
      refuse(match.refused, socket.remoteAddress, peer?.commonName, socket.authorized ? named(peer) : undefined);
      socket.destroy();
      return;
    }
    // This address may now use the slots kept for known masters, for its organisation, while it is seen.
    const address = addressKey(socket.remoteAddress);
    const owner = ownerOf(match.integration);
    slots.remember(address, owner);
    admitted.set(socket, { socket, peer, protocol: socket.getProtocol(), integrationId: match.integration.id });
    socket.once('close', () => { if (admitted.delete(socket)) slots.remember(address, owner); });
    opts.onMaster(socket, match.integration);
  });
  // With a listener here Node leaves closing to it (a timed-out handshake would otherwise stay open).
  server.on('tlsClientError', (err, socket) => {
    handshakeDone(socket);
    socket.destroy();
    // A connection closed for a cap or a late ClientHello was reported already.
    if (!reported.delete(`${socket.remoteAddress}|${socket.remotePort}`)) refuse('handshake', socket.remoteAddress, err.message);
  });
  // Before the TLS server wraps the socket: one over a cap costs no TLS work at all.
  server.prependListener('connection', (raw: Socket) => {
    const address = addressKey(raw.remoteAddress);
    const key = `${raw.remoteAddress}|${raw.remotePort}`;
    const closeReported = (reason: ListenerRefusal, detail: string) => {
      refuse(reason, raw.remoteAddress, detail);
      reported.add(key);
      raw.once('close', () => setImmediate(() => reported.delete(key)));
      raw.destroy();
    };
    const release = slots.take(address);
    if (!release) {
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
    const done = () => {
      if (handshaking.delete(key)) release();
    };
    handshaking.set(key, done);
    raw.once('close', done);
  });
  if (opts.onKeylog) server.on('keylog', (line: Buffer) => opts.onKeylog?.(line));

  const reload = () => {
    server.setSecureContext(context());
    slots.keepOwners(new Set(opts.integrations().map(ownerOf)));
    for (const a of [...admitted.values()]) {
      const match = judge(a.peer, a.protocol);
      if ('integration' in match && match.integration.id === a.integrationId) continue;
      admitted.delete(a.socket);
      a.socket.destroy();
      refuse('refused' in match ? match.refused : 'unknownIdentity', a.socket.remoteAddress, a.peer?.commonName, named(a.peer), true);
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
      for (const a of [...admitted.values()]) { a.socket.destroy(); refuse('unknownIdentity', a.socket.remoteAddress, id, undefined, true); }
    };
  }
  server.maxConnections = limits.connections;
  server.on('drop', (d) => refuse('busy', d?.remoteAddress, addressKey(d?.remoteAddress)));
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
