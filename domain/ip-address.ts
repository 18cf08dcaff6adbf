// IP address text into numbers, for the rules that class addresses (the login limit's /64, the webhook
// target ranges). Pure; node:net's isIP decides what is an address at all.

/**
 * The eight 16-bit groups of an IPv6 address: `::` expanded, a dotted IPv4 tail (`::ffff:1.2.3.4`) read as
 * two groups, a zone (`%eth0`) and brackets dropped. null when the text is not one.
 */
export function ipv6Groups(address: string): number[] | null {
  let text = address.replace(/^\[|\]$/g, '').split('%')[0]!.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    if ([a, b, c, d].some((x) => x > 255)) return null;
    text = text.slice(0, -v4[0].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)) : []);
  const left = part(halves[0]), right = part(halves[1]);
  const groups = halves.length === 1 ? left : [...left, ...Array<number>(Math.max(0, 8 - left.length - right.length)).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g)) ? groups : null;
}

/** The IPv4 address in the last two groups, dotted. */
export const embeddedV4 = (g: readonly number[]): string => `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;

/** NAT64's well-known prefix (RFC 6052): 64:ff9b::/96 carries an IPv4 host in its last 32 bits. */
const isNat64 = (g: readonly number[]): boolean => g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0);
/** IPv4-mapped IPv6 (::ffff:a.b.c.d), as a dual-stack socket reports an IPv4 peer. */
const isMappedV4 = (g: readonly number[]): boolean => g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff;

/**
 * The key a per-address limit counts an address under (the login limit, the SCADA listener's handshake cap): an
 * IPv4 address as itself; an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::/96) address as the IPv4 host it
 * carries, since each is one IPv4 host; any other IPv6 address by its /64 (one subscriber usually holds a whole
 * /64, so rotating through it must not reset the count). Anything else as given; no address at all is '?'.
 */
export function addressKey(address: string | undefined): string {
  if (address === undefined || address === '') return '?';
  const trimmed = address.trim();
  if (/^\d+\.\d+\.\d+\.\d+$/.test(trimmed)) return trimmed;
  const g = trimmed.includes(':') ? ipv6Groups(trimmed) : null;
  if (!g) return trimmed;
  if (isMappedV4(g) || isNat64(g)) return embeddedV4(g);
  return `${g.slice(0, 4).map((x) => x.toString(16)).join(':')}::/64`;
}
