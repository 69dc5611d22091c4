#!/usr/bin/env bash
# Generates (or refreshes) the Go module that builds one minor's control plane:
#   e2e/controlplane/v1.N/{go.mod,go.sum,main.go}
# k8s.io/kubernetes requires its staging modules at v0.0.0, so every staging
# module gets a replace pinned to the matching v0.N.P.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
minor=${1:?usage: controlplane-module.sh 1.N [v1.N.P] [outdir]}
read -r _ patch godir < <(awk -v m="$minor" '$1==m' "$here/hack/k8s-versions.txt")
[ -n "${patch:-}" ] || { echo "unknown minor $minor (see hack/k8s-versions.txt)" >&2; exit 2; }
patch=${2:-$patch}   # an explicit patch, e.g. while probing which one the proxy serves whole
staging_ver="v0.${patch#v1.}"
dir=${3:-$here/e2e/controlplane/v$minor}
mkdir -p "$dir"
# One source for every minor: the module links to it rather than copying it.
ln -sfn "$(realpath --relative-to="$dir" "$here/e2e/controlplane/main.go.tmpl")" "$dir/main.go"
cd "$dir"
export GOFLAGS=-mod=mod
rm -f go.mod go.sum
go mod init attune.local/e2e/controlplane >/dev/null 2>&1
go mod edit -go="$godir"
# Staging modules are the ones kubernetes' own go.mod replaces with ./staging/.
gomod=$(go mod download -json "k8s.io/kubernetes@$patch" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
mapfile -t staging < <(grep -oE '^\s*k8s\.io/[a-z0-9-]+ => \./staging/' "$gomod" | awk '{print $1}' | sort -u)
[ "${#staging[@]}" -gt 20 ] || { echo "could not read staging modules from $gomod" >&2; exit 1; }
go mod edit -require="k8s.io/kubernetes@$patch"
for m in "${staging[@]}"; do
  go mod edit -replace="$m=$m@$staging_ver"
done
go mod tidy
echo "generated $dir for $patch (${#staging[@]} staging replaces)"
