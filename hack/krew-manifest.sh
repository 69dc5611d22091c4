#!/usr/bin/env bash
# Packages the built plugin for krew: build/krew/kubectl-attune_linux_amd64.tar.gz
# and the manifest deploy/krew/attune.yaml filled with its version, URI and
# sha256 (build/krew/attune.yaml). Only linux/amd64 is built here.
#   hack/krew-manifest.sh [--uri-base URL]   (default: the release download path of this version)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
bin="$here/$build/src/cli/kubectl-attune"
[ -x "$bin" ] || { echo "krew-manifest: $bin is not built (make build)" >&2; exit 1; }
version=$(sed -n "s/^  version : '\([^']*\)',/\1/p" "$here/meson.build")
[ -n "$version" ] || { echo "krew-manifest: no version in meson.build" >&2; exit 1; }
uri_base="https://github.com/attune-io/attune/releases/download/v$version"
[ "${1:-}" = --uri-base ] && { uri_base=${2:?--uri-base needs a URL}; }
out="$here/$build/krew"
mkdir -p "$out/pkg"
cp "$bin" "$out/pkg/kubectl-attune"
archive="kubectl-attune_linux_amd64.tar.gz"
tar -C "$out/pkg" --owner=0 --group=0 --mtime=@0 -czf "$out/$archive" kubectl-attune
sha=$(sha256sum "$out/$archive" | cut -d' ' -f1)
sed -e "s|\${VERSION}|$version|g" -e "s|\${URI}|$uri_base/$archive|g" -e "s|\${SHA256}|$sha|g" \
  "$here/deploy/krew/attune.yaml" >"$out/attune.yaml"
# The manifest must be YAML with every placeholder filled.
python3 - "$out/attune.yaml" <<'PY'
import sys, yaml
m = yaml.safe_load(open(sys.argv[1]))
assert m["kind"] == "Plugin" and m["metadata"]["name"] == "attune", "not the attune Plugin"
p = m["spec"]["platforms"][0]
assert len(p["sha256"]) == 64 and p["uri"].endswith(".tar.gz") and "${" not in open(sys.argv[1]).read(), "unfilled"
PY
echo "$out/attune.yaml ($archive sha256 $sha)"
