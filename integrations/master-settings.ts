// The settings every SCADA master integration shares (DNP3, IEC 104): its certificate (master identity, CA or
// pinned file, TLS minimum), an optional dedicated port and "analog only". One reader for the `settings` jsonb
// of both kinds; each protocol adds its own keys (dnp3/identity.ts, iec104/identity.ts). Which keys the import
// accepts is reference-data/integration-settings.ts (MASTER_SETTINGS).
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { certificateNames, peerIdentity, type MasterCertificate, type TlsMinVersion } from './master-certificate.js';

export interface MasterSettings extends MasterCertificate {
  organizationId: string;
  caFile?: string;
  pinnedCertificateFile?: string;
  analogOnly: boolean;
}

/** An `integrations` row as readIntegrations returns it. */
export interface IntegrationRow { id: string; OrganizationID: string; settings: unknown; claimedAt?: Date }

/** The row's settings as an object (jsonb is `unknown` until here). */
export const settingsOf = (row: IntegrationRow): Record<string, unknown> =>
  (row.settings && typeof row.settings === 'object' ? row.settings : {}) as Record<string, unknown>;

/**
 * The shared settings of a master integration, or undefined without a master identity. `defaultTls` differs per
 * protocol: DNP3 asks TLS 1.3 unless told, IEC 104 1.2 (docs/decisions.md#iec-104-outstation).
 */
export function masterSettingsFromRow(row: IntegrationRow, defaultTls: TlsMinVersion): MasterSettings | undefined {
  const s = settingsOf(row);
  if (typeof s.masterIdentity !== 'string' || s.masterIdentity === '') return undefined;
  const tls = (v: unknown): TlsMinVersion | undefined => (v === 'TLSv1.2' || v === '1.2' ? 'TLSv1.2' : v === 'TLSv1.3' || v === '1.3' ? 'TLSv1.3' : undefined);
  const out: MasterSettings = {
    id: row.id,
    organizationId: row.OrganizationID,
    masterIdentity: s.masterIdentity,
    tlsMinVersion: tls(s.tlsMinVersion) ?? defaultTls,
    certificateMode: s.certificateMode === 'pinned' ? 'pinned' : 'ca',
    analogOnly: s.analogOnly === true,
  };
  if (row.claimedAt) out.claimedAt = row.claimedAt.getTime();
  if (typeof s.caFile === 'string') out.caFile = s.caFile;
  if (typeof s.pinnedCertificateFile === 'string') out.pinnedCertificateFile = s.pinnedCertificateFile;
  if (typeof s.port === 'number' && Number.isInteger(s.port) && s.port > 0 && s.port < 65536) out.port = s.port;
  return out;
}

/** Every certificate in a PEM file (a CA file may be a bundle); X509Certificate alone reads only the first. */
export function certificatesIn(pem: string | Buffer): X509Certificate[] {
  return [...pem.toString().matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)].map((m) => new X509Certificate(m[0]));
}

/** A certificate file an integration names that could not be read or holds no certificate (never its content). */
export interface UnreadableCertificate { file: string; problem: string }

/** The certificates in one file, or why there are none: a missing file, a bad PEM, no certificate at all. */
function readCertificates(file: string): X509Certificate[] | UnreadableCertificate {
  try {
    const certs = certificatesIn(readFileSync(file));
    return certs.length > 0 ? certs : { file, problem: 'no PEM certificate in the file' };
  } catch (err) {
    // ENOENT and the like name the file, OpenSSL's errors the parse step: neither quotes the content.
    return { file, problem: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
  }
}

/**
 * The names a pinned certificate file proves (its DNS SANs, else its CN: what namedIntegrations compares), or
 * undefined when it cannot be read. The import compares them with other organisations' claims: a pin of a master's
 * certificate proves every name on it, not only the one the integration claims.
 */
export function pinnedCertificateNames(file: string): string[] | undefined {
  const read = readCertificates(file);
  if (!Array.isArray(read)) return undefined;
  return certificateNames(peerIdentity(read[0]!));
}

/**
 * Reads the certificate files an integration names, afresh on every (re)load: a pinned master certificate is
 * trusted as its own CA in the handshake, then matched by fingerprint; in CA mode its caFile's CAs must have
 * signed the master's certificate (without a caFile: the service CA, which the listener holds). A file that
 * cannot be read or parsed is answered, not thrown: that integration alone is not admitted
 * (docs/decisions.md#scada-master-identity-and-listener).
 */
export function resolveCertificates<I extends MasterSettings>(i: I): { integration: I } | { unreadable: UnreadableCertificate } {
  if (i.certificateMode === 'pinned' && i.pinnedCertificateFile) {
    const read = readCertificates(i.pinnedCertificateFile);
    if (!Array.isArray(read)) return { unreadable: read };
    i.pinnedCertificate = read[0]!;
    i.pinnedFingerprint256 = read[0]!.fingerprint256;
  }
  if (i.certificateMode === 'ca' && i.caFile) {
    const read = readCertificates(i.caFile);
    if (!Array.isArray(read)) return { unreadable: read };
    i.issuerCas = read;
  }
  return { integration: i };
}
