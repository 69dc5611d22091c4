#!/usr/bin/env bash
# Finds the newest patch of a minor whose k8s.io/kubernetes AND every staging
# module it needs are served by the Go module proxy (the proxy here mirrors
# only some module versions). Prints that patch; used to fill k8s-versions.txt.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
minor=${1:?usage: controlplane-probe.sh 1.N}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# The proxy's version list is itself partial, so walk every patch number down
# from the newest one it lists.
newest=$(go list -m -versions k8s.io/kubernetes | tr ' ' '\n' | grep -E "^v${minor}\.[0-9]+$" | sort -V | tail -1)
[ -n "$newest" ] || { echo "controlplane-probe: no v$minor.x of k8s.io/kubernetes is listed" >&2; exit 1; }
for (( n=${newest##*.}; n>=0; n-- )); do
  p="v$minor.$n"
  if "$here/hack/controlplane-module.sh" "$minor" "$p" "$tmp/$p" >"$tmp/$p.log" 2>&1; then echo "$p"; exit 0; fi
  echo "controlplane-probe: $p incomplete: $(grep -m1 -oE '[a-z0-9./-]+@v[0-9.]+: (reading|invalid|unknown)' "$tmp/$p.log" || tail -1 "$tmp/$p.log")" >&2
done
echo "controlplane-probe: no complete patch of $minor is served" >&2; exit 1
