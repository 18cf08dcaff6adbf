// The client address for per-address login limits. The socket's peer by default; behind a proxy the
// operator sets TRUST_PROXY=1 and the left-most X-Forwarded-For entry is used instead (never trusted
// otherwise: any client can write that header).
import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';

export function socketAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    // app.request() in tests has no socket.
    return 'unknown';
  }
}

export function forwardedAddress(c: Context): string {
  const first = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
  return first || socketAddress(c);
}

export function clientAddressFromEnv(env: NodeJS.ProcessEnv = process.env): (c: Context) => string {
  return env.TRUST_PROXY === '1' ? forwardedAddress : socketAddress;
}
