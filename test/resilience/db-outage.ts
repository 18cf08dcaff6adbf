// A Postgres outage that only the processes under test see: they reach the shared server through this TCP
// proxy, and `down()` resets every connection and every new one until `up()`. The server itself stays up for
// the other suites and for the test's own checks (which connect directly).
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface DatabaseProxy {
  /** DATABASE_URL through the proxy. */
  url: string;
  down(): void;
  up(): void;
  close(): Promise<void>;
}

export async function databaseProxy(databaseUrl: string): Promise<DatabaseProxy> {
  const target = new URL(databaseUrl);
  const open = new Set<Socket>();
  let isDown = false;
  const server: Server = createServer((client) => {
    if (isDown) { client.resetAndDestroy(); return; }
    const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
    open.add(client);
    open.add(upstream);
    const end = () => { open.delete(client); open.delete(upstream); client.destroy(); upstream.destroy(); };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.toString(),
    down() {
      isDown = true;
      for (const s of open) s.resetAndDestroy();
      open.clear();
    },
    up() { isDown = false; },
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
