#!/usr/bin/env bash
# Development certificates for the DNP3 outstation (mutual TLS): a CA, the outstation's server certificate
# (SANs outstation.test, localhost, IP 127.0.0.1 so rustls/Go masters can check the name), and client
# certificates for the fixture masters scada.north.example and scada.south.example (CN = SAN = identity).
# A second, untrusted CA signs rogue.example so tests can show that a foreign CA is refused.
# Idempotent: existing files are kept; pass --force to regenerate. Output: .infra/certs/ (git-ignored).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${CERTS_DIR:-$root/.infra/certs}"
force="${1:-}"
mkdir -p "$out"
cd "$out"

if [[ "$force" == "--force" ]]; then rm -f ./*.pem ./*.srl ./*.cnf; fi

ca() { # name
  [[ -f "$1.pem" ]] && return
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 825 \
    -subj "/CN=faultline dev $1" -keyout "$1-key.pem" -out "$1.pem" 2>/dev/null
}

leaf() { # name ca usage san
  local name=$1 ca=$2 usage=$3 san=$4
  [[ -f "$name.pem" ]] && return
  cat >"$name.cnf" <<CNF
basicConstraints=CA:FALSE
keyUsage=digitalSignature
extendedKeyUsage=$usage
subjectAltName=$san
CNF
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$name" \
    -keyout "$name-key.pem" -out "$name.csr" 2>/dev/null
  openssl x509 -req -in "$name.csr" -CA "$ca.pem" -CAkey "$ca-key.pem" -CAcreateserial -days 825 \
    -extfile "$name.cnf" -out "$name.pem" 2>/dev/null
  rm -f "$name.csr" "$name.cnf"
}

ca ca
ca rogue-ca
leaf outstation.test ca serverAuth "DNS:outstation.test,DNS:localhost,IP:127.0.0.1"
leaf scada.north.example ca clientAuth "DNS:scada.north.example"
leaf scada.south.example ca clientAuth "DNS:scada.south.example"
leaf rogue.example rogue-ca clientAuth "DNS:scada.north.example"
echo "certificates in $out"
