// Maps a verified client certificate to one integration (docs/decisions.md#scada-master-identity-and-listener), for
// every protocol served over mutual TLS (DNP3, IEC 104 per IEC 62351-3). No I/O: the listener passes the peer's
// leaf certificate as Node parsed it; unit tests pass plain objects.
import type { X509Certificate } from 'node:crypto';

export type TlsMinVersion = 'TLSv1.2' | 'TLSv1.3';

/** What an integration says about its master's certificate. */
export interface MasterCertificate {
  id: string;
  /** The organisation the integration belongs to: two organisations' claims on one master are judged by age (matchMaster). */
  organizationId?: string;
  /**
   * When the integration's claim on its master began (ms; `integrations.claimed_at`, reset whenever the master
   * identity, certificate mode, pinned file, caFile or organisation changes): of two organisations proving one
   * certificate through the same name, the older claim wins.
   */
  claimedAt?: number;
  /** Must equal the client certificate's CN or one of its DNS SANs. */
  masterIdentity: string;
  tlsMinVersion: TlsMinVersion;
  certificateMode: 'ca' | 'pinned';
  /** SHA-256 fingerprint (Node's `AA:BB:...` form) of the pinned client certificate. */
  pinnedFingerprint256?: string;
  /** The pinned certificate itself: the handshake trusts it as its own issuer. */
  pinnedCertificate?: X509Certificate;
  /**
   * CA mode: the CAs allowed to issue this integration's master certificate (its caFile); absent: the service CA.
   * The handshake trusts every integration's CA, so without this proof one organisation's CA could issue a
   * certificate carrying another organisation's master identity.
   */
  issuerCas?: readonly X509Certificate[];
  /** Optional dedicated port besides the shared one. */
  port?: number;
}

export interface PeerIdentity {
  commonName?: string;
  dnsNames: string[];
  fingerprint256: string;
  /** Whether `ca` signed this certificate: a proof by signature, never by a chain the peer sent. */
  issuedBy(ca: X509Certificate): boolean;
}

/**
 * True when `ca` issued `leaf`: the names and key identifiers match (`leaf.checkIssued(ca)`: "was this issued by
 * ca") AND the leaf's signature verifies with the CA's public key. Names and key identifiers alone are what a
 * forged copy of a CA can imitate.
 */
export function provenIssuer(ca: X509Certificate, leaf: X509Certificate): boolean {
  try {
    return leaf.checkIssued(ca) && leaf.verify(ca.publicKey);
  } catch {
    return false;
  }
}

/** The subject's CN: Node writes the subject as `key=value` lines. */
function commonNameOf(subject: string): string | undefined {
  return subject.split('\n').find((l) => l.startsWith('CN='))?.slice(3);
}

/** The leaf the peer presented (`TLSSocket.getPeerX509Certificate()`): its names, its fingerprint, the issuer proof. */
export function peerIdentity(leaf: X509Certificate): PeerIdentity {
  const dnsNames = (leaf.subjectAltName ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.startsWith('DNS:'))
    .map((s) => s.slice(4));
  const commonName = commonNameOf(leaf.subject);
  return { ...(commonName !== undefined ? { commonName } : {}), dnsNames, fingerprint256: leaf.fingerprint256, issuedBy: (ca) => provenIssuer(ca, leaf) };
}

export type IdentityRefusal = 'noCertificate' | 'unknownIdentity' | 'ambiguousIdentity' | 'pinMismatch' | 'tlsVersion' | 'wrongIssuer';

const VERSION_RANK: Record<string, number> = { 'TLSv1.2': 2, 'TLSv1.3': 3 };

/** A master identity as compared: DNS names are case-insensitive (the import compares them so too, reference-data/master-claims.ts). */
export const claimName = (name: string): string => name.toLowerCase();

/** The names a certificate answers to: its DNS SANs, its CN only when it has none (RFC 6125). */
export const certificateNames = (peer: { commonName?: string; dnsNames: string[] }): string[] =>
  peer.dnsNames.length ? peer.dnsNames : peer.commonName ? [peer.commonName] : [];

/** A master identity an integration claims, and whose claim it is. */
export interface IdentityClaim { organizationId: string; masterIdentity: string }

/**
 * The names on a pinned certificate that another organisation claims as a master identity, as the certificate
 * reads now: a file swapped after the import is judged again at every load (docs/decisions.md#pins-checked-at-load).
 * Such a pin would admit its holder under, or share, another organisation's master; the listener leaves it out.
 * Only identities count, not the names on other organisations' pins: a tenant copying a victim's pinned certificate
 * would then shut the victim out too.
 */
export function namesClaimedByOthers(i: Pick<MasterCertificate, 'organizationId' | 'certificateMode' | 'pinnedCertificate'>, claims: readonly IdentityClaim[]): string[] {
  if (i.certificateMode !== 'pinned' || !i.pinnedCertificate) return [];
  const others = new Set(claims.filter((c) => c.organizationId !== i.organizationId).map((c) => claimName(c.masterIdentity)));
  return certificateNames(peerIdentity(i.pinnedCertificate)).filter((n) => others.has(claimName(n)));
}

/** The integrations whose master identity the certificate names, on this port (matchMaster: more than one that its proof passes is ambiguous). */
export function namedIntegrations<I extends MasterCertificate>(peer: { commonName?: string; dnsNames: string[] }, integrations: readonly I[], port?: number): I[] {
  const names = certificateNames(peer).map(claimName);
  return integrations.filter((i) => names.includes(claimName(i.masterIdentity)) && (port === undefined || i.port === undefined || i.port === port));
}

/** Why `integration` does not admit this certificate by proof (pin or issuer), or undefined when it does. */
function unproven(peer: PeerIdentity, integration: MasterCertificate, serviceCas: readonly X509Certificate[]): 'pinMismatch' | 'wrongIssuer' | undefined {
  if (integration.certificateMode === 'pinned') return integration.pinnedFingerprint256?.toUpperCase() === peer.fingerprint256.toUpperCase() ? undefined : 'pinMismatch';
  return (integration.issuerCas ?? serviceCas).some((ca) => peer.issuedBy(ca)) ? undefined : 'wrongIssuer';
}

/**
 * The integration a master may reach, or why it is refused. SAN names are preferred; the CN counts only when
 * the certificate has no DNS SAN (the rule of RFC 6125: the CN is a fallback for certificates without DNS names).
 * In CA mode one of the integration's CAs (`issuerCas`, else `serviceCas`) must have signed the leaf itself; in
 * pinned mode the fingerprint must match. Ambiguity is judged among the integrations whose proof the certificate
 * passes: another integration merely claiming the same identity (its own CA or pin) does not cut off the master
 * it cannot prove (docs/decisions.md#scada-master-identity-and-listener). When integrations of more than one
 * organisation prove it through the same name (another tenant pinned this master's public certificate, or put its
 * public CA in a caFile), the organisation with the oldest claim keeps it (firstClaim): a newer claim by anyone
 * else cannot shut the master out. Through different names (the certificate's other SANs) nobody keeps it: the
 * import compares names only, so an age across names would let a tenant take a master by naming its second SAN
 * (docs/decisions.md#scada-listener-slots-sessions-and-claims).
 */
export function matchMaster<I extends MasterCertificate>(
  peer: PeerIdentity | undefined,
  protocol: string | null,
  integrations: readonly I[],
  port?: number,
  serviceCas: readonly X509Certificate[] = [],
): { integration: I } | { refused: IdentityRefusal } {
  if (!peer) return { refused: 'noCertificate' };
  const found = namedIntegrations(peer, integrations, port);
  if (found.length === 0) return { refused: 'unknownIdentity' };
  const proving = found.filter((i) => unproven(peer, i, serviceCas) === undefined);
  // None proven: the first named integration's reason (each is an impersonation attempt alike).
  if (proving.length === 0) return { refused: unproven(peer, found[0]!, serviceCas)! };
  const proven = firstClaim(proving);
  if (proven.length > 1) return { refused: 'ambiguousIdentity' };
  const integration = proven[0]!;
  if ((VERSION_RANK[protocol ?? ''] ?? 0) < VERSION_RANK[integration.tlsMinVersion]!) return { refused: 'tlsVersion' };
  return { integration };
}

/**
 * Of integrations of several organisations that all prove one certificate through the same name, those of the
 * organisation whose claim is oldest; unchanged when one organisation alone proves it, when they name it
 * differently (the import cannot see a certificate's other names, so no age is comparable), or when the age cannot
 * tell (unknown, or a tie): then ambiguity refuses rather than guesses. A master identity is unique across
 * organisations at write time too (reference-data/master-claims.ts); this holds for rows written any other way.
 */
function firstClaim<I extends MasterCertificate>(proving: I[]): I[] {
  const orgs = new Set(proving.map((i) => i.organizationId ?? i.id));
  if (orgs.size < 2 || proving.some((i) => i.claimedAt === undefined)) return proving;
  if (new Set(proving.map((i) => claimName(i.masterIdentity))).size > 1) return proving;
  const oldest = Math.min(...proving.map((i) => i.claimedAt!));
  const first = proving.filter((i) => i.claimedAt === oldest);
  if (new Set(first.map((i) => i.organizationId ?? i.id)).size > 1) return proving;
  const owner = first[0]!.organizationId ?? first[0]!.id;
  return proving.filter((i) => (i.organizationId ?? i.id) === owner);
}
