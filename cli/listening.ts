// How the start-up list names where a listener listens (docs/decisions.md#safe-to-start-on-a-network): the
// address it bound, and in words whether the network can reach it, so the list never says "localhost" for a
// port every interface answers on.
import { isIP } from 'node:net';

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

/** Whether a listener bound to `host` is reachable from this machine only. */
export const isLoopback = (host: string): boolean => LOOPBACK.test(host) || host === 'localhost';

export function whereListening(host: string, port: number): string {
  const address = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  if (isLoopback(host)) return `${address}, loopback only (HOST=0.0.0.0 opens it to the network)`;
  if (host === '0.0.0.0' || host === '::') return `${address}, every network interface`;
  return address;
}
