// Serves the app on Node's http server (@hono/node-server).
import { serve, type ServerType } from '@hono/node-server';
import type { Server } from 'node:http';
import type { Hono } from 'hono';

/**
 * Idle keep-alive connections live 65 s. Node's default (5 s) is shorter than what the proxies in front of
 * an API keep idle upstream connections for (AWS ALB 60 s, nginx upstream keepalive_timeout 60 s), so the
 * server would close a connection the proxy is about to reuse, and that request fails (ECONNRESET, a 502
 * to the user). headersTimeout must exceed it (Node's rule).
 */
const KEEP_ALIVE_MS = 65_000;

export function listen(app: Hono, { port, hostname }: { port: number; hostname: string }): Promise<{ server: ServerType; port: number; close(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname }, (info) => {
      resolve({
        server,
        port: info.port,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
    (server as Server).keepAliveTimeout = KEEP_ALIVE_MS;
    (server as Server).headersTimeout = KEEP_ALIVE_MS + 1000;
    server.once('error', reject);
  });
}
