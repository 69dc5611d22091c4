#!/usr/bin/env bash
# Builds one minor's multi-call control-plane binary (etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler, kubectl) from the real upstream Go
# modules, stamped with the version, and caches it under a directory keyed by
# that version and by the module's go.sum, so later runs and CI reuse it.
# Prints the path of the cached binary on stdout.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
minor=${1:?usage: controlplane-build.sh 1.N}
read -r _ patch _ < <(awk -v m="$minor" '$1==m' "$here/hack/k8s-versions.txt")
[ -n "${patch:-}" ] || { echo "controlplane-build: unknown minor '$minor'; known: $(awk '!/^#/{printf "%s ", $1}' "$here/hack/k8s-versions.txt")" >&2; exit 2; }
command -v go >/dev/null || { echo "controlplane-build: no Go toolchain on PATH (hack/deps.sh installs one)" >&2; exit 2; }
src="$here/e2e/controlplane/v$minor"
[ -f "$src/go.mod" ] || { echo "controlplane-build: $src/go.mod missing; run hack/controlplane-module.sh $minor" >&2; exit 2; }
key=$(cat "$src/go.sum" "$src/main.go" | sha256sum | cut -c1-12)
cache="${ATTUNE_CACHE:-$HOME/.cache/attune}/controlplane/$patch-$key"
if [ -x "$cache/k8s" ]; then echo "$cache/k8s"; exit 0; fi
mkdir -p "$cache"
# Two checkouts (or two make targets) may want the same minor at once: the
# second waits for the first build instead of writing the same file.
exec 9>"$cache/.lock"
flock 9
if [ -x "$cache/k8s" ]; then echo "$cache/k8s"; exit 0; fi
maj=1; min=${minor#1.}
ld="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ld+=" -X $pkg.gitVersion=$patch -X $pkg.gitMajor=$maj -X $pkg.gitMinor=$min -X $pkg.gitTreeState=clean"
done
start=$(date +%s)
echo "controlplane-build: building $patch (cold builds take a while on 2 cores)..." >&2
( cd "$src" && CGO_ENABLED=0 nice -n 10 go build -trimpath -mod=readonly \
    -ldflags "$ld" -o "$cache/k8s.tmp" . ) >&2
mv "$cache/k8s.tmp" "$cache/k8s"
for c in etcd kube-apiserver kube-controller-manager kube-scheduler kubectl; do ln -sf k8s "$cache/$c"; done
echo "$(( $(date +%s) - start ))" > "$cache/build-seconds"
echo "controlplane-build: $patch built in $(cat "$cache/build-seconds")s" >&2
echo "$cache/k8s"
