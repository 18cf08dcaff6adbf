// Maps a verified client certificate to one integration (docs/decisions.md#dnp3-outstation), for every
// protocol served over mutual TLS (DNP3, IEC 104 per IEC 62351-3). Pure: the server passes the peer
// certificate's names and fingerprint; tests pass plain objects.

export type TlsMinVersion = 'TLSv1.2' | 'TLSv1.3';

/** What an integration says about its master's certificate. */
export interface MasterCertificate {
  id: string;
  /** Must equal the client certificate's CN or one of its DNS SANs. */
  masterIdentity: string;
  tlsMinVersion: TlsMinVersion;
  certificateMode: 'ca' | 'pinned';
  /** SHA-256 fingerprint (Node's `AA:BB:...` form) of the pinned client certificate. */
  pinnedFingerprint256?: string;
  /**
   * SHA-256 fingerprints of the CAs allowed to vouch for this integration's master (its caFile, else the
   * service CA). The handshake trusts every configured CA, so without this check one organisation's CA
   * could issue a certificate carrying another organisation's master identity.
   */
  trustedCa256?: string[];
  /** Optional dedicated port besides the shared one. */
  port?: number;
}

export interface PeerIdentity {
  commonName?: string;
  dnsNames: string[];
  fingerprint256: string;
  /** Fingerprints of the issuer chain above the certificate (from getPeerCertificate(true)). */
  issuers256?: string[];
}

/** Names in a Node peer certificate: subject CN and `DNS:` entries of subjectaltname. */
interface NodeCert { subject?: { CN?: string | string[] } | null; subjectaltname?: string; fingerprint256?: string; issuerCertificate?: NodeCert }

function issuerChain(cert: NodeCert): string[] {
  const out: string[] = [];
  let c = cert.issuerCertificate;
  // A self-signed root points at itself; stop there (and after a sane depth).
  while (c && c.fingerprint256 && !out.includes(c.fingerprint256) && out.length < 10) {
    out.push(c.fingerprint256);
    c = c.issuerCertificate;
  }
  return out;
}

export function peerIdentity(cert: NodeCert): PeerIdentity {
  const cn = cert.subject?.CN;
  const dnsNames = (cert.subjectaltname ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.startsWith('DNS:'))
    .map((s) => s.slice(4));
  return { commonName: Array.isArray(cn) ? cn[0] : cn, dnsNames, fingerprint256: cert.fingerprint256 ?? '', issuers256: issuerChain(cert) };
}

export type IdentityRefusal = 'noCertificate' | 'unknownIdentity' | 'ambiguousIdentity' | 'pinMismatch' | 'tlsVersion' | 'wrongIssuer';

const VERSION_RANK: Record<string, number> = { 'TLSv1.2': 2, 'TLSv1.3': 3 };

/** The integrations whose master identity the certificate names, on this port (more than one: ambiguous). */
export function namedIntegrations<I extends MasterCertificate>(peer: PeerIdentity, integrations: readonly I[], port?: number): I[] {
  const names = peer.dnsNames.length ? peer.dnsNames : peer.commonName ? [peer.commonName] : [];
  return integrations.filter((i) => names.includes(i.masterIdentity) && (port === undefined || i.port === undefined || i.port === port));
}

/**
 * The integration a master may reach, or why it is refused. SAN names are preferred; the CN counts only when
 * the certificate has no DNS SAN (the rule of RFC 6125: the CN is a fallback for certificates without DNS names).
 */
export function matchMaster<I extends MasterCertificate>(
  peer: PeerIdentity | undefined,
  protocol: string | null,
  integrations: readonly I[],
  port?: number,
): { integration: I } | { refused: IdentityRefusal } {
  if (!peer) return { refused: 'noCertificate' };
  const found = namedIntegrations(peer, integrations, port);
  if (found.length === 0) return { refused: 'unknownIdentity' };
  if (found.length > 1) return { refused: 'ambiguousIdentity' };
  const integration = found[0]!;
  if (integration.certificateMode === 'pinned' && integration.pinnedFingerprint256?.toUpperCase() !== peer.fingerprint256.toUpperCase()) {
    return { refused: 'pinMismatch' };
  }
  if (integration.certificateMode === 'ca' && integration.trustedCa256) {
    const trusted = new Set(integration.trustedCa256.map((f) => f.toUpperCase()));
    if (!(peer.issuers256 ?? []).some((f) => trusted.has(f.toUpperCase()))) return { refused: 'wrongIssuer' };
  }
  if ((VERSION_RANK[protocol ?? ''] ?? 0) < VERSION_RANK[integration.tlsMinVersion]!) return { refused: 'tlsVersion' };
  return { integration };
}

