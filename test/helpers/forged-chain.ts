// The hostile tenant's forged chain of issue 41, finding 1 (docs/decisions.md#scada-master-identity-and-listener),
// made with openssl in a dev-certs folder (test/helpers/dev-certs.ts). The hostile tenant's CA (rogue-ca, trusted by
// the listener for its own integration) issued rogue.example, which names north's master identity. Sent alone it
// proves rogue-ca as its issuer. The chain it is sent with adds a forged copy of rogue-ca (same subject, same
// subject key id, issuer name = the victim's CA, signed by nobody the victim trusts) and the victim's public CA
// certificate: a chain linked by names and key ids reaches the victim's CA; one proved by signature does not.
import { execFileSync } from 'node:child_process';
import type { DevCerts } from './dev-certs.js';

/** Writes `rogue-chain.pem` (leaf, forged rogue-ca, the real ca) into the folder; key: `rogue.example-key`. */
export function forgeChain(certs: DevCerts): { chain: string; key: string } {
  execFileSync('bash', ['-c', `set -e; cd "${certs.dir}"
    # An impostor of the victim CA's name with the hostile tenant's own key, to sign the forged copy.
    openssl req -x509 -new -key rogue-ca-key.pem -subj "/CN=faultline dev ca" -days 825 -out impostor-ca.pem 2>/dev/null
    openssl req -new -key rogue-ca-key.pem -subj "/CN=faultline dev rogue-ca" -out forged.csr 2>/dev/null
    printf "basicConstraints=critical,CA:TRUE\\nsubjectKeyIdentifier=hash\\nauthorityKeyIdentifier=none\\n" > forged.ext
    openssl x509 -req -in forged.csr -CA impostor-ca.pem -CAkey rogue-ca-key.pem -set_serial 41 -days 825 -extfile forged.ext -out forged-rogue-ca.pem 2>/dev/null
    cat rogue.example.pem forged-rogue-ca.pem ca.pem > rogue-chain.pem
    rm -f forged.csr forged.ext`]);
  return { chain: certs.pem('rogue-chain'), key: certs.pem('rogue.example-key') };
}
