// The start-up list's warning while the embedded default's generated secrets are in use on a network
// (docs/decisions.md#secrets-left-at-their-example): the JWT key, the secret keys and the DNP3 development
// certificates it makes under DATA_DIR are fine for a laptop on loopback, but they live in one folder of one
// machine, nobody chose or backed them up, and the development CA signs masters for every organisation.
import type { Settings } from '../config/settings.js';
import { defaultKeyFile } from '../secrets/keyring.js';
import { isLoopback } from './listening.js';

export type GeneratedSecretsView = Pick<Settings, 'httpHost' | 'dataDir' | 'jwtSecret' | 'secretKeys' | 'scadaTls'>;

/** The WARNING line, or null: off the embedded default, on loopback, or once every generated secret is replaced. */
export function generatedSecretsWarning(embedded: boolean, s: GeneratedSecretsView): string | null {
  if (!embedded || isLoopback(s.httpHost)) return null;
  const generated = [
    ...(s.jwtSecret ? [] : [`the token signing key (${s.dataDir}/jwt-secret; set JWT_SECRET)`]),
    ...(s.secretKeys.keys || s.secretKeys.keyFile ? [] : [`the secret keys (${defaultKeyFile(s.dataDir)}; set FAULTLINE_SECRET_KEYS or FAULTLINE_SECRET_KEY_FILE)`]),
    ...(s.scadaTls ? [] : [`the DNP3 development certificates (${s.dataDir}/certs; set DNP3_TLS_KEY, DNP3_TLS_CERT, DNP3_TLS_CA)`]),
  ];
  if (generated.length === 0) return null;
  return `WARNING: HOST=${s.httpHost} opens this embedded default to the network while it uses secrets it generated for a laptop: ${generated.join(', ')}; set your own before anyone else can reach it (docs/operations.md#key-custody)`;
}
