// The SCADA listener's handshake slots (docs/decisions.md#scada-listener-slots-sessions-and-claims): who may start a
// TLS handshake now, decided from the address alone before any TLS work. Pure bookkeeping; the listener
// (master-listener.ts) takes a slot per TCP connection, gives it back when the handshake ends, and tells it which
// addresses completed a handshake as whose master.
//
// Strangers share `handshakes - knownMasterHandshakes` slots. The rest are kept for addresses that completed a
// handshake as a known master, and inside them no one tenant may crowd out another: an address holds at most
// `knownPerAddress` of them and one organisation's addresses at most `knownPerOwner`. A known address is forgotten
// `knownForgetMs` after its last handshake or its last connection closing, and at once when no admitted
// integration of its organisation is left (reload); one organisation is remembered at most `KNOWN_PER_OWNER`
// addresses, so its own oldest go first. Every address, known or not, stays under
// `handshakesPerAddress` in all.

export interface SlotLimits {
  /** TLS handshakes in progress at once. */
  handshakes: number;
  /** TLS handshakes in progress at once from one address (domain/ip-address.ts addressKey: an IPv6 /64). */
  handshakesPerAddress: number;
  /** Of `handshakes`, the slots only addresses known as a master's may take. */
  knownMasterHandshakes: number;
  /** Of the kept slots, what one known address may hold. */
  knownPerAddress: number;
  /** Of the kept slots, what the addresses of one organisation's masters may hold together. */
  knownPerOwner: number;
  /** A known address not seen connected this long is a stranger again. */
  knownForgetMs: number;
}

/** Addresses remembered as known masters (the least recently seen forgotten past this). */
const KNOWN_MASTERS = 4096;
/** Of those, one organisation's (its own least recently seen forgotten past this): a tenant with an IPv6 /48 has
 * 65,536 addresses and cannot push another tenant's master out of the memory (docs/decisions.md#known-masters-per-organisation). */
const KNOWN_PER_OWNER = 64;

export class HandshakeSlots {
  private total = 0;
  private strangers = 0;
  private readonly perAddress = new Map<string, number>();
  private readonly keptPerAddress = new Map<string, number>();
  private readonly keptPerOwner = new Map<string, number>();
  /** Address key -> the organisation it completed a handshake for, and when it was last seen; oldest first. */
  private readonly known = new Map<string, { owner: string; seen: number }>();
  /** Organisation -> its addresses in `known`, oldest first. */
  private readonly knownOf = new Map<string, Set<string>>();

  constructor(private readonly limits: SlotLimits, private readonly now: () => number = Date.now) {}

  /** A slot for a new connection from `address` (an addressKey), with its release; undefined when over a cap. */
  take(address: string): (() => void) | undefined {
    const l = this.limits;
    if (this.total >= l.handshakes || (this.perAddress.get(address) ?? 0) >= l.handshakesPerAddress) return undefined;
    let kept: string | undefined;
    if (this.strangers >= l.handshakes - l.knownMasterHandshakes) {
      const owner = this.ownerOf(address);
      if (owner === undefined || (this.keptPerAddress.get(address) ?? 0) >= l.knownPerAddress || (this.keptPerOwner.get(owner) ?? 0) >= l.knownPerOwner) return undefined;
      kept = owner;
    }
    this.total++;
    bump(this.perAddress, address, 1);
    if (kept === undefined) this.strangers++;
    else { bump(this.keptPerAddress, address, 1); bump(this.keptPerOwner, kept, 1); }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      bump(this.perAddress, address, -1);
      if (kept === undefined) this.strangers--;
      else { bump(this.keptPerAddress, address, -1); bump(this.keptPerOwner, kept, -1); }
    };
  }

  /** `address` completed a handshake as a master of `owner` (or one of its connections closed): seen now. */
  remember(address: string, owner: string): void {
    this.forget(address);
    this.known.set(address, { owner, seen: this.now() });
    const mine = this.knownOf.get(owner) ?? new Set<string>();
    this.knownOf.set(owner, mine.add(address));
    if (mine.size > KNOWN_PER_OWNER) this.forget(mine.values().next().value!);
    if (this.known.size > KNOWN_MASTERS) this.forget(this.known.keys().next().value!);
  }

  /** Forgets the addresses of every organisation not in `owners` (a reload: no integration of theirs is admitted). */
  keepOwners(owners: ReadonlySet<string>): void {
    for (const [address, k] of this.known) if (!owners.has(k.owner)) this.forget(address);
  }

  private forget(address: string): void {
    const k = this.known.get(address);
    if (!k) return;
    this.known.delete(address);
    const mine = this.knownOf.get(k.owner)!;
    mine.delete(address);
    if (mine.size === 0) this.knownOf.delete(k.owner);
  }

  /** The organisation `address` is known for, if it was seen within the bound. */
  private ownerOf(address: string): string | undefined {
    const k = this.known.get(address);
    if (k && this.now() - k.seen > this.limits.knownForgetMs) this.forget(address);
    return k && this.known.has(address) ? k.owner : undefined;
  }
}

function bump(map: Map<string, number>, key: string, by: number): void {
  const n = (map.get(key) ?? 0) + by;
  if (n > 0) map.set(key, n); else map.delete(key);
}
