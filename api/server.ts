// Serves the app on Node's http or https server (@hono/node-server). Where TLS ends:
// docs/production-shape.md#where-tls-ends and docs/decisions.md#production-shape.
import { serve, type ServerType } from '@hono/node-server';
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import type { Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { SecureContextOptions } from 'node:tls';
import type { Hono } from 'hono';

/**
 * Idle keep-alive connections live 65 s. Node's default (5 s) is shorter than what the proxies in front of
 * an API keep idle upstream connections for (AWS ALB 60 s, nginx upstream keepalive_timeout 60 s), so the
 * server would close a connection the proxy is about to reuse, and that request fails (ECONNRESET, a 502
 * to the user). headersTimeout must exceed it (Node's rule).
 */
const KEEP_ALIVE_MS = 65_000;

/** How long close() lets requests in flight finish before it closes every connection. */
const CLOSE_GRACE_MS = 10_000;

/** Certificate and key files (PEM) for HTTPS; the files are read again whenever either changes. */
export interface TlsFiles { certFile: string; keyFile: string }

/** TLS 1.2 at least; Node offers 1.3 first, so a client that speaks it gets it. */
const TLS_VERSIONS = { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.3' } as const;

function readPair({ certFile, keyFile }: TlsFiles): SecureContextOptions {
  return { cert: readFileSync(certFile), key: readFileSync(keyFile) };
}

export interface Listening {
  server: ServerType;
  port: number;
  protocol: 'http' | 'https';
  /** Reads the certificate and key again (also done on any change to either file); throws on a bad pair, keeping the old one. */
  reloadCertificate(): void;
  /** Stops accepting connections, answers the requests in flight, closes idle keep-alive connections. */
  close(): Promise<void>;
}

export function listen(app: Hono, { port, hostname, tls }: { port: number; hostname: string; tls?: TlsFiles | null }): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const options = tls
      ? { createServer: createHttpsServer, serverOptions: { ...readPair(tls), ...TLS_VERSIONS } }
      : {};
    let watchers: FSWatcher[] = [];
    const reloadCertificate = () => {
      if (!tls) return;
      // setSecureContext takes the new pair for new handshakes; connections already open keep theirs.
      (server as HttpsServer).setSecureContext({ ...readPair(tls), ...TLS_VERSIONS });
    };
    const server = serve({ fetch: app.fetch, port, hostname, ...options }, (info) => {
      if (tls) {
        // A renewed certificate (cert-manager, certbot) is written in place or renamed over the old file.
        // A file renamed over is a new inode the old watch does not see: watch again after each change.
        let timer: NodeJS.Timeout | undefined;
        const rewatch = () => {
          for (const w of watchers) w.close();
          watchers = [tls.certFile, tls.keyFile].map((f) => watch(f, changed));
        };
        const changed = () => {
          clearTimeout(timer);
          // Both files are usually replaced together: wait for the second before reading.
          timer = setTimeout(() => {
            try { reloadCertificate(); } catch { /* a half-written pair: the next change reloads */ }
            try { rewatch(); } catch { /* a file missing for a moment: the next start reads it */ }
          }, 200);
        };
        rewatch();
      }
      resolve({
        server,
        port: info.port,
        protocol: tls ? 'https' : 'http',
        reloadCertificate,
        close: () => new Promise<void>((done) => {
          for (const w of watchers) w.close();
          watchers = [];
          // Keep-alive clients (a balancer's health check, a poller) would hold the server open: connections
          // are closed whenever idle between their requests, and all of them after CLOSE_GRACE_MS.
          const http = server as Server;
          const sweep = setInterval(() => http.closeIdleConnections(), 50);
          const hard = setTimeout(() => http.closeAllConnections(), CLOSE_GRACE_MS);
          server.close(() => { clearInterval(sweep); clearTimeout(hard); done(); });
          http.closeIdleConnections();
        }),
      });
    });
    (server as Server).keepAliveTimeout = KEEP_ALIVE_MS;
    (server as Server).headersTimeout = KEEP_ALIVE_MS + 1000;
    server.once('error', reject);
  });
}
