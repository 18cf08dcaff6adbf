// Webhook targets on loopback, link-local or private ranges are refused unless ALARM_WEBHOOK_ALLOW names
// the range (docs/decisions.md#alarm-routing): an organisation admin must not make faultline call into
// the network it runs in. Checked when a recipient is saved (a literal address) and again at connect time
// on the address the name resolved to, so a DNS answer cannot move a public name onto a private address.
import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { WebhookAllowance } from '../../config/settings.js';

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

/** Which range an IP address lies in (IPv4, IPv6, IPv4-mapped IPv6). */
export function addressRange(address: string): AddressRange {
  const a = address.toLowerCase().replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIP(a) === 4) return v4Range(a);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return v4Range(mapped[1]!);
  // The URL parser writes a mapped IPv4 address in hex (::ffff:7f00:1).
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(a);
  if (hex) {
    const [hi, lo] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
    return v4Range(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  if (a === '::1') return 'loopback';
  if (a === '::') return 'unspecified';
  if (/^fe[89ab]/.test(a)) return 'link-local';
  if (/^f[cd]/.test(a) || /^ff/.test(a)) return 'private';
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
