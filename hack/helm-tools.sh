#!/usr/bin/env bash
# Builds the chart tools from their Go modules at pinned versions and caches
# them under ~/.cache/attune/helm/<key>/ (key: the versions and the Go
# toolchain), so later runs and CI reuse them:
#   helm            helm.sh/helm/v3/cmd/helm
#   untt            the helm-unittest plugin (installed as a Helm plugin
#                   under plugins/unittest, so `helm unittest` works)
#   monitoring-crds the Prometheus Operator's own CRD files (ServiceMonitor,
#                   PrometheusRule) from its module, for server-side dry runs
#   cert-manager-crds cert-manager's Issuer and Certificate CRDs from its module,
#                   likewise (nothing of either project is built or run)
# Prints the cache directory on stdout; logs go to stderr. Use it as
#   tools=$(hack/helm-tools.sh); export HELM_PLUGINS=$tools/plugins; "$tools/helm" ...
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh"
HELM_VERSION=v3.22.0
UNITTEST_VERSION=v1.1.2
PROM_OPERATOR_VERSION=v0.85.0
CERT_MANAGER_VERSION=v1.21.2
command -v go >/dev/null || { echo "helm-tools: no Go toolchain on PATH (hack/deps.sh installs one)" >&2; exit 2; }
gov=$(go env GOVERSION)
# Keyed on this script too, so a changed recipe rebuilds.
key=$( { printf '%s\n' "$gov"; cat "${BASH_SOURCE[0]}"; } | sha256sum | cut -c1-12)
cache="${ATTUNE_CACHE:-$HOME/.cache/attune}/helm/$key"
ready() { [ -f "$cache/.complete" ] && echo "$cache"; }
ready && exit 0
mkdir -p "$cache"
exec 9>"$cache/.lock"; flock 9   # a second checkout waits for the first one's build
ready && exit 0
start=$(date +%s)
moddir() { go mod download -json "$1" | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(d["Error"]) if d.get("Error") else print(d["Dir"])'; }
# Build inside the downloaded module with its own go.mod/go.sum (-mod=readonly:
# nothing resolved anew), as its release Makefile does, stamping the version.
# Helm's default Kubernetes version (what `helm template` checks kubeVersion
# against and offers as .Capabilities) is the client-go it was built with, as
# its Makefile stamps it; unstamped it would claim 1.20.
build() { # module@version package output ldflags
  local dir kv ver; dir=$(moddir "$1")
  kv=$(cd "$dir" && go list -mod=readonly -m -f '{{.Version}}' k8s.io/client-go)  # v0.MINOR.PATCH
  ver="-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$(echo "$kv" | cut -d. -f2)"
  ver+=" -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$(echo "$kv" | cut -d. -f2)"
  echo "helm-tools: building $1 ($2, Kubernetes 1.$(echo "$kv" | cut -d. -f2))..." >&2
  ( cd "$dir" && CGO_ENABLED=0 GOFLAGS=-mod=readonly nice -n 10 go build -trimpath \
      -ldflags "-s -w $ver $4" -o "$cache/$3.tmp" "$2" ) >&2
  mv -f "$cache/$3.tmp" "$cache/$3"
}
[ -x "$cache/helm" ] || build "helm.sh/helm/v3@$HELM_VERSION" ./cmd/helm helm \
  "-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
[ -x "$cache/plugins/unittest/untt" ] || {
  mkdir -p "$cache/plugins/unittest"
  build "github.com/helm-unittest/helm-unittest@$UNITTEST_VERSION" ./cmd/helm-unittest plugins/unittest/untt \
    "-X github.com/helm-unittest/helm-unittest/internal/build.version=${UNITTEST_VERSION#v}"
}
# Our own plugin manifest: the module's one runs an install hook that
# downloads a release binary, which we have just built instead.
cat > "$cache/plugins/unittest/plugin.yaml" <<EOF
name: unittest
version: "${UNITTEST_VERSION#v}"
usage: unit tests for Helm charts
description: helm-unittest $UNITTEST_VERSION, built from its Go module by hack/helm-tools.sh
command: "\$HELM_PLUGIN_DIR/untt"
EOF
pdir=$(moddir "github.com/prometheus-operator/prometheus-operator@$PROM_OPERATOR_VERSION")
rm -rf "$cache/monitoring-crds"; mkdir -p "$cache/monitoring-crds"
cp "$pdir"/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml \
   "$pdir"/example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml "$cache/monitoring-crds/"
cdir=$(moddir "github.com/cert-manager/cert-manager@$CERT_MANAGER_VERSION")
rm -rf "$cache/cert-manager-crds"; mkdir -p "$cache/cert-manager-crds"
cp "$cdir"/deploy/crds/cert-manager.io_issuers.yaml "$cdir"/deploy/crds/cert-manager.io_certificates.yaml "$cache/cert-manager-crds/"
chmod -R u+w "$cache/monitoring-crds" "$cache/cert-manager-crds"
echo "$(( $(date +%s) - start ))" > "$cache/build-seconds"
touch "$cache/.complete"
echo "helm-tools: helm $HELM_VERSION, helm-unittest $UNITTEST_VERSION, prometheus-operator CRDs $PROM_OPERATOR_VERSION, cert-manager CRDs $CERT_MANAGER_VERSION ready in $(cat "$cache/build-seconds")s" >&2
echo "$cache"
