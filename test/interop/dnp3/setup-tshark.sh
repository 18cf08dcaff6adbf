#!/usr/bin/env bash
# tshark (Debian) for the capture test; installed when missing (CI runs as root on Debian).
set -euo pipefail
if ! command -v tshark >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  echo 'wireshark-common wireshark-common/install-setuid boolean false' | debconf-set-selections 2>/dev/null || true
  apt-get update -qq >/dev/null && apt-get install -y -qq tshark >/dev/null
fi
command -v tshark
