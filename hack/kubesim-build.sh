#!/usr/bin/env bash
# Builds kubesim (e2e/kubesim: the simulated kubelet) and caches the binary
# under a directory keyed by its sources, so later runs and CI reuse it.
# Prints the path of the cached binary on stdout; logs go to stderr.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
src="$here/e2e/kubesim"
command -v go >/dev/null || { echo "kubesim-build: no Go toolchain on PATH (hack/deps.sh installs one)" >&2; exit 2; }
[ -f "$src/go.mod" ] || { echo "kubesim-build: $src/go.mod missing" >&2; exit 2; }
# Key on go.sum and the non-test sources (sorted, so the order is stable).
key=$(cd "$src" && { cat go.mod go.sum; find . -maxdepth 1 -name '*.go' ! -name '*_test.go' | LC_ALL=C sort | xargs cat; } | sha256sum | cut -c1-12)
cache="${ATTUNE_CACHE:-$HOME/.cache/attune}/kubesim/$key"
if [ -x "$cache/kubesim" ]; then echo "$cache/kubesim"; exit 0; fi
mkdir -p "$cache"
start=$(date +%s)
echo "kubesim-build: building $key..." >&2
# A private temp name, so two concurrent builds cannot clobber each other.
tmp=$(mktemp "$cache/kubesim.XXXXXX")
trap 'rm -f "$tmp"' EXIT
( cd "$src" && CGO_ENABLED=0 nice -n 10 go build -trimpath -mod=readonly \
    -ldflags "-s -w" -o "$tmp" . ) >&2
chmod 755 "$tmp"
mv -f "$tmp" "$cache/kubesim"
echo "kubesim-build: built in $(( $(date +%s) - start ))s" >&2
echo "$cache/kubesim"
