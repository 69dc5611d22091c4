#!/usr/bin/env bash
# Puts AWS's published SigV4 test vectors (the aws4_testsuite files) where
# test/core/aws/sigv4_suite_test.cpp looks for them:
#   ${ATTUNE_SIGV4_SUITE:-${XDG_CACHE_HOME:-~/.cache}/attune/aws4_testsuite}
# They are not committed here: botocore's source distribution ships them
# (tests/unit/auth/aws4_testsuite), so pip downloads that one pinned file,
# checked by hash, and only the vectors are kept. Idempotent; hack/deps.sh runs it.
set -euo pipefail
dest=${ATTUNE_SIGV4_SUITE:-${XDG_CACHE_HOME:-$HOME/.cache}/attune/aws4_testsuite}
ver=1.44.18
sha=c78f0a2346b4700d77702530d04c1fed525ef0bb9723218eb8a7cfeae07b6b28
log() { echo "sigv4-vectors: $*" >&2; }

if [ -d "$dest" ] && [ -n "$(find "$dest" -name '*.req' -print -quit)" ]; then exit 0; fi
python3 -m pip --version >/dev/null 2>&1 || { log "pip is missing (hack/deps.sh installs python3-pip)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
log "fetching the vectors from the botocore $ver source distribution"
python3 -m pip download --quiet --no-deps --no-binary :all: --no-build-isolation "botocore==$ver" -d "$tmp" >/dev/null 2>&1 ||
  python3 -m pip download --quiet --no-deps --no-binary :all: "botocore==$ver" -d "$tmp" >/dev/null
echo "$sha  $tmp/botocore-$ver.tar.gz" | sha256sum -c --quiet
tar -xzf "$tmp/botocore-$ver.tar.gz" -C "$tmp" "botocore-$ver/tests/unit/auth/aws4_testsuite"
mkdir -p "$(dirname "$dest")"
rm -rf "$dest"
mv "$tmp/botocore-$ver/tests/unit/auth/aws4_testsuite" "$dest"
log "$(find "$dest" -name '*.req' | wc -l) cases in $dest"
