// IEC 60870-5-104 over mutual TLS per IEC 62351-3 (node:tls, TLS 1.2 at least) on IEC104_PORT (2404). The client
// certificate is verified in the handshake and mapped to exactly one integration of kind iec104 before a
// session exists (the certificate model DNP3 uses, integrations/master-certificate.ts). Each integration has one
// Iec104Outstation that outlives connections; a reconnecting master replaces its previous session.
import { createServer as createTlsServer } from 'node:tls';
import type { TLSSocket, TlsOptions } from 'node:tls';
import type { Socket } from 'node:net';
import { peerIdentity, type IdentityRefusal } from '../integrations/master-certificate.js';
import type { RefusalReason } from './diagnostics/reasons.js';
import { matchIec104Integration, type Iec104Integration } from './identity.js';
import type { Iec104Outstation } from './outstation.js';
import { Iec104Session, type Iec104SessionOptions } from './session.js';

export const DEFAULT_IEC104_PORT = 2404;

export interface Iec104TlsMaterial {
  key: string | Buffer;
  cert: string | Buffer;
  /** CAs that sign master certificates, plus any pinned (self-signed) master certificates. */
  ca: (string | Buffer)[];
}

export interface Iec104ServerOptions {
  port: number;
  host?: string;
  tls: Iec104TlsMaterial;
  integrations: () => readonly Iec104Integration[];
  outstationFor: (integration: Iec104Integration) => Iec104Outstation;
  session?: Pick<Iec104SessionOptions, 'tickMs' | 'clock' | 'onClockSync' | 'onTraffic'>;
  onRefused?: (reason: IdentityRefusal | 'handshake', detail?: string) => void;
  onRefusal?: (integration: Iec104Integration, reason: RefusalReason) => void;
  onSession?: (integration: Iec104Integration, session: Iec104Session) => void;
  /** NSS key-log lines, for decrypting test captures in tshark. Never enable in production. */
  onKeylog?: (line: Buffer) => void;
}

export interface Iec104Server {
  port: number;
  sessions: ReadonlyMap<string, Iec104Session>;
  close(): Promise<void>;
}

export async function startIec104Server(opts: Iec104ServerOptions): Promise<Iec104Server> {
  const sessions = new Map<string, Iec104Session>();
  const sockets = new Set<Socket>();

  const attach = (socket: TLSSocket, integration: Iec104Integration) => {
    sessions.get(integration.id)?.close('replaced by a new connection');
    const session = new Iec104Session(socket, opts.outstationFor(integration), {
      ...opts.session,
      timers: integration.timers,
      onRefusal: (reason) => opts.onRefusal?.(integration, reason),
      onClose: () => { if (sessions.get(integration.id) === session) sessions.delete(integration.id); },
    });
    sessions.set(integration.id, session);
    opts.onSession?.(integration, session);
  };

  const tlsOptions: TlsOptions = {
    ...opts.tls,
    requestCert: true,
    rejectUnauthorized: true,
    minVersion: 'TLSv1.2',
    // IEC 62351-3 allows resumption, but a resumed session would skip the certificate we map from.
    sessionTimeout: 0,
    handshakeTimeout: Math.max(...opts.integrations().map((i) => i.timers.t0Ms), 30_000),
  };
  const server = createTlsServer(tlsOptions, (socket: TLSSocket) => {
    const cert = socket.getPeerCertificate(true);
    const peer = cert && Object.keys(cert).length > 0 ? peerIdentity(cert) : undefined;
    const match = socket.authorized ? matchIec104Integration(peer, socket.getProtocol(), opts.integrations(), opts.port) : { refused: 'noCertificate' as const };
    if ('refused' in match) {
      opts.onRefused?.(match.refused, peer?.commonName);
      socket.destroy();
      return;
    }
    attach(socket, match.integration);
  });
  server.on('tlsClientError', (err) => opts.onRefused?.('handshake', err.message));
  if (opts.onKeylog) server.on('keylog', (line: Buffer) => opts.onKeylog?.(line));
  server.on('connection', (s: Socket) => {
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
