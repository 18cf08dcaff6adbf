// The client address for per-address login limits. The socket's peer by default. Behind proxies the operator
// sets TRUST_PROXY to the number of proxies it runs in front of the API (1: one load balancer): each proxy
// appends the address it saw to X-Forwarded-For, so the entry that many places from the right is the address
// the outermost trusted proxy saw. Entries further left are whatever the client wrote and are never used
// (docs/decisions.md#hostile-callers); a header with fewer entries, or an entry that is not an IP address,
// falls back to the socket peer.
import { isIP } from 'node:net';
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

/** The address `hops` trusted proxies saw: the `hops`-th X-Forwarded-For entry from the right. */
export function forwardedFor(header: string | undefined, hops: number): string | null {
  if (!header || hops < 1) return null;
  const entries = header.split(',').map((e) => e.trim());
  const entry = entries[entries.length - hops];
  return entry !== undefined && isIP(entry) ? entry : null;
}

export function forwardedAddress(hops: number): (c: Context) => string {
  return (c) => forwardedFor(c.req.header('x-forwarded-for'), hops) ?? socketAddress(c);
}

/** Settings.trustProxy (TRUST_PROXY): 0, the socket peer; n >= 1, n proxies in front (README "Configuration"). */
export function clientAddressBehind(hops: number): (c: Context) => string {
  return hops > 0 ? forwardedAddress(hops) : socketAddress;
}
