// The CAs an alarm's HTTPS request trusts (webhooks and the SMS gateway; docs/decisions.md#alarm-targets-behind-a-private-ca):
// the system's CAs, plus the private CAs of ALARM_HTTP_CA_FILE when set. Added, not instead: one deployment
// sends to public webhook receivers and to one on its own network. Read once when the alarm worker starts.
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { X509Certificate } from 'node:crypto';

/** The PEM bundle for the `ca` option, or undefined (Node's own CAs) when no file is set. */
export function alarmHttpCa(caFile: string | null): Buffer | undefined {
  if (!caFile) return undefined;
  let text: string;
  try {
    text = readFileSync(caFile, 'utf8');
  } catch (err) {
    throw new Error(`ALARM_HTTP_CA_FILE ${caFile} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { cause: err });
  }
  const pems = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (pems.length === 0) throw new Error(`ALARM_HTTP_CA_FILE ${caFile} holds no PEM certificate`);
  for (const pem of pems) {
    try { new X509Certificate(pem); } catch { throw new Error(`ALARM_HTTP_CA_FILE ${caFile} holds a certificate that cannot be parsed`); }
  }
  return Buffer.from([...rootCertificates, ...pems].join('\n') + '\n');
}

/** The sentence a failed TLS verification gets: what to change when the target uses a private CA. */
export const UNTRUSTED_HINT = 'the target\'s certificate does not chain to a CA this process trusts (a private CA goes in ALARM_HTTP_CA_FILE)';

/** Node's codes for a chain that ends at no trusted CA (not a wrong name or an expired certificate). */
export const isUntrustedChain = (message: string) => /UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT|UNABLE_TO_GET_ISSUER_CERT/.test(message);
