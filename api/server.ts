// Serves the app on Node's http server (@hono/node-server).
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';

export function listen(app: Hono, { port, hostname }: { port: number; hostname: string }): Promise<{ server: ServerType; port: number; close(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname }, (info) => {
      resolve({
        server,
        port: info.port,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
    server.once('error', reject);
  });
}
