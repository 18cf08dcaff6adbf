// Webhook targets on loopback, link-local or private ranges are refused unless ALARM_WEBHOOK_ALLOW names
// the range (docs/decisions.md#alarm-routing): an organisation admin must not make faultline call into
// the network it runs in. Checked when a recipient is saved (a literal address) and again at send time: on
// the address a name resolved to, so a DNS answer cannot move a public name onto a private address, and on
// an address literal too (outbox/http-post.ts), so a recipient saved before the setting changed, or written
// past the API, is refused when it is sent.
import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { WebhookAllowance } from '../../config/settings.js';
import { embeddedV4, ipv6Groups } from '../../domain/ip-address.js';

export type AddressRange = 'public' | WebhookAllowance | 'unspecified';

function v4Range(a: string): AddressRange {
  const [p, q] = a.split('.').map(Number) as [number, number];
  if (p === 127) return 'loopback';
  if (p === 0) return 'unspecified';
  if (p === 169 && q === 254) return 'link-local';
  if (p === 10 || (p === 172 && q >= 16 && q <= 31) || (p === 192 && q === 168) || (p === 100 && q >= 64 && q <= 127)) return 'private';
  if (p >= 224) return 'private'; // multicast and reserved: never a webhook
  return 'public';
}

/**
 * Which range an IP address lies in (IPv4, IPv6, IPv4-mapped IPv6). IPv6 that carries an IPv4 address
 * (mapped, compatible, 6to4, NAT64) is classed by it; NAT64 (64:ff9b::/96, 64:ff9b:1::/48) and the old
 * site-local fec0::/10 count as private at least, whatever they carry: a NAT64 gateway reaches the network
 * faultline runs in (docs/decisions.md#hostile-callers).
 */
export function addressRange(address: string): AddressRange {
  const a = address.toLowerCase().replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIP(a) === 4) return v4Range(a);
  const g = isIP(a) === 6 ? ipv6Groups(a) : null;
  if (!g) return 'private'; // not an address we can read: never a target
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeros(8)) return 'unspecified';
  if (zeros(7) && g[7] === 1) return 'loopback';
  if (zeros(5) && g[5] === 0xffff) return v4Range(embeddedV4(g)); // ::ffff:a.b.c.d (mapped)
  if (zeros(6)) return v4Range(embeddedV4(g)); // ::a.b.c.d (IPv4-compatible, deprecated)
  const nat64 = (g[0] === 0x64 && g[1] === 0xff9b && ((g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0) || g[2] === 1));
  if (nat64) {
    const inner = g[2] === 0 ? v4Range(embeddedV4(g)) : 'private';
    return inner === 'public' ? 'private' : inner;
  }
  if (g[0] === 0x2002) { // 6to4: the IPv4 address in groups 1 and 2
    const inner = v4Range(`${g[1]! >> 8}.${g[1]! & 255}.${g[2]! >> 8}.${g[2]! & 255}`);
    if (inner !== 'public') return inner;
  }
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0]! & 0xffc0) === 0xfec0) return 'private'; // site-local (deprecated, still routed on some networks)
  if ((g[0]! & 0xfe00) === 0xfc00) return 'private'; // unique local
  if ((g[0]! & 0xff00) === 0xff00) return 'private'; // multicast: never a webhook
  return 'public';
}

export function rangeAllowed(range: AddressRange, allow: readonly WebhookAllowance[]): boolean {
  return range === 'public' || (range !== 'unspecified' && allow.includes(range));
}

/** Why a webhook URL is refused before any connection, or null. Names resolve at send time (guardedLookup). */
export function webhookUrlProblem(url: string, allow: readonly WebhookAllowance[]): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'is not a URL';
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'must be an http:// or https:// URL';
  if (u.username || u.password) return 'must not carry a user or password (the signature authenticates)';
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return rangeAllowed('loopback', allow) ? null : 'points at loopback, which ALARM_WEBHOOK_ALLOW does not allow';
  if (isIP(host)) {
    const range = addressRange(host);
    if (!rangeAllowed(range, allow)) return `points at a ${range} address, which ALARM_WEBHOOK_ALLOW does not allow`;
  }
  return null;
}

/** A `lookup` for http.request that refuses addresses outside the allowed ranges (error code TARGET_REFUSED). */
export function guardedLookup(allow: readonly WebhookAllowance[]): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return (callback as (e: NodeJS.ErrnoException | null, a: string, f?: number) => void)(err, '', 0);
      const list = addresses as unknown as { address: string; family: number }[];
      const ok = list.filter((a) => rangeAllowed(addressRange(a.address), allow));
      if (ok.length === 0) {
        const e = Object.assign(new Error(`webhook host resolves only to refused ranges (${[...new Set(list.map((a) => addressRange(a.address)))].join(', ')})`), { code: 'TARGET_REFUSED' });
        return (callback as (e: NodeJS.ErrnoException | null, a: string, f?: number) => void)(e, '', 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, ok);
      return (callback as (e: null, a: string, f: number) => void)(null, ok[0]!.address, ok[0]!.family);
    });
  };
}
