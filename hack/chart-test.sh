#!/usr/bin/env bash
# The Helm chart's checks (make test runs this; the e2e test 16 applies the
# chart to a real apiserver). Each check is counted once; the last line is
# `chart: N passed, N failed`, which hack/test.sh adds to its total.
#   KUBECTL=...   the kubectl for `kubectl kustomize` (default: the 1.36
#                 control plane's, built by hack/controlplane-build.sh)
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
chart=deploy/helm/attune
pass=0; fail=0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
check() { # NAME CMD...: runs CMD, output to the log; counts and reports it
  local name=$1; shift
  if "$@" >"$work/out" 2>&1; then
    pass=$((pass+1)); echo "chart: ok   $name"
  else
    fail=$((fail+1)); echo "chart: FAIL $name"; sed 's/^/    /' "$work/out" | tail -40
  fi
}
refuses() { ! "$@"; }  # a check that passes when CMD fails (bad input must be refused)

tools=$(hack/helm-tools.sh) || { echo "chart: the chart tools did not build"; echo "chart: 0 passed, 1 failed"; exit 1; }
# Helm keeps its config, cache and plugins apart from the user's.
export HELM_PLUGINS=$tools/plugins HELM_CACHE_HOME=$work/helm-cache HELM_CONFIG_HOME=$work/helm-config HELM_DATA_HOME=$work/helm-data
helm=$tools/helm
if [ -z "${KUBECTL:-}" ]; then
  k8s=$(hack/controlplane-build.sh 1.36) || { echo "chart: no kubectl (the 1.36 control plane did not build)"; echo "chart: 0 passed, 1 failed"; exit 1; }
  KUBECTL=$(dirname "$k8s")/kubectl
fi
render() { "$helm" template attune "$chart" --namespace attune-system "$@"; }

# One version everywhere: meson.build's project version, the chart's
# appVersion and the kustomize base's image tag.
versions_agree() {
  local meson app kust
  meson=$(sed -nE "s/^ *version *: *'([^']+)'.*/\1/p" meson.build | head -1)
  app=$(sed -nE 's/^appVersion: *"?([^"]+)"?$/\1/p' "$chart/Chart.yaml")
  kust=$(sed -nE 's/^ *image: *attune\/attune-manager:(.+)$/\1/p' deploy/kustomize/base/manager/deployment.yaml)
  echo "meson.build $meson, Chart.yaml appVersion $app, kustomize base image tag $kust"
  [ -n "$meson" ] && [ "$meson" = "$app" ] && [ "$meson" = "$kust" ]
}
check "meson.build version = Chart.yaml appVersion = kustomize base image tag" versions_agree

check "helm lint" "$helm" lint "$chart"
check "helm lint --strict" "$helm" lint --strict "$chart"
for f in "$chart"/ci/*-values.yaml; do
  check "helm lint --strict -f ${f#"$chart"/}" "$helm" lint --strict "$chart" -f "$f"
done
# values.schema.json is strict: a misspelt key or a bad enum fails lint.
check "helm lint refuses a misspelt value (imgae.tag)" refuses "$helm" lint "$chart" --set imgae.tag=x
check "helm lint refuses a misspelt nested value (metrics.serviceMonitor.enable)" \
  refuses "$helm" lint "$chart" --set metrics.serviceMonitor.enable=true
check "helm lint refuses logging.level=verbose" refuses "$helm" lint "$chart" --set logging.level=verbose

# kubeVersion admits every supported minor and nothing older.
every_minor() {
  local patch
  for patch in $(awk '!/^#/ && NF {print $2}' hack/k8s-versions.txt); do
    render --kube-version "$patch" -f "$chart/ci/all-on-values.yaml" >/dev/null || { echo "refused $patch"; return 1; }
  done
  ! render --kube-version v1.31.9 >/dev/null 2>&1 || { echo "1.31 accepted"; return 1; }
}
check "renders for every minor of hack/k8s-versions.txt, refuses 1.31" every_minor

check "helm unittest (deploy/helm/attune/tests)" "$helm" unittest --color=false "$chart"

# One source of truth: the chart with default values is the kustomize base,
# and with the webhook on it is the webhook and cert-manager overlays. The
# allowed differences are named here (and Helm's own labels in
# hack/chart-compare.py): Helm installs into a namespace it does not own
# (helm install --create-namespace), so the base's Namespace is not in the
# chart; the chart adds the metrics Service (metrics.enabled, as the Go
# chart); and it names the webhook's Secret, configuration and Service
# explicitly, since they follow the release name (the manager's defaults are
# the names a release called attune gets).
ns_only=(--base-only Namespace//attune-system)
metrics_only=(--chart-only Service/attune-system/attune-manager-metrics)
webhook_args=(--chart-arg=--webhook-secret-name=attune-webhook-tls --chart-arg=--webhook-configuration-name=attune-webhook
              --chart-arg=--webhook-service-name=attune-webhook)
same_install() { # NAME KUSTOMIZE-DIR COMPARE-ARGS... -- HELM-ARGS...
  local name=$1 dir=$2; shift 2
  local cmp=(); while [ "$1" != -- ]; do cmp+=("$1"); shift; done; shift
  render --include-crds "$@" >"$work/$name-helm.yaml" && "$KUBECTL" kustomize "$dir" >"$work/$name-kustomize.yaml" &&
    python3 hack/chart-compare.py "$work/$name-helm.yaml" "$work/$name-kustomize.yaml" "${cmp[@]}"
}
check "helm template (defaults) = kubectl kustomize deploy/kustomize/base, object by object" \
  same_install base deploy/kustomize/base "${ns_only[@]}" "${metrics_only[@]}" --
check "helm template (initialSizing) = kubectl kustomize deploy/kustomize/overlays/webhook" \
  same_install webhook deploy/kustomize/overlays/webhook "${ns_only[@]}" "${metrics_only[@]}" "${webhook_args[@]}" -- \
  --set initialSizing.enabled=true
check "helm template (initialSizing.certManager) = kubectl kustomize deploy/kustomize/overlays/cert-manager" \
  same_install cert-manager deploy/kustomize/overlays/cert-manager "${ns_only[@]}" "${metrics_only[@]}" "${webhook_args[@]}" -- \
  --set initialSizing.enabled=true --set initialSizing.certManager.enabled=true
# ... and the comparison sees a difference (a changed replica count).
differs() {
  [ -s "$work/base-kustomize.yaml" ] && render --include-crds --set replicaCount=3 >"$work/helm3.yaml" || return 1
  python3 hack/chart-compare.py "$work/helm3.yaml" "$work/base-kustomize.yaml" "${ns_only[@]}" "${metrics_only[@]}" >"$work/diff.out"
  [ $? = 1 ] && grep -q '^chart-compare: Deployment/attune-system/attune-manager differs' "$work/diff.out" &&
    grep -q '^+  replicas: 3' "$work/diff.out"
}
check "harness check: the comparison reports a chart that differs (replicaCount=3)" differs

# The alerts: promtool's rule tests, and the PrometheusRule carries exactly
# the tested file's groups.
check "promtool check rules files/alerts.rules.yml" promtool check rules "$chart/files/alerts.rules.yml"
check "promtool test rules files/alerts_test.yml" sh -c "cd '$chart/files' && promtool test rules alerts_test.yml"
same_rules() {
  render --set metrics.prometheusRule.enabled=true --show-only templates/metrics.yaml >"$work/rule.yaml" &&
    python3 - "$work/rule.yaml" "$chart/files/alerts.rules.yml" <<'EOF'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"] == "PrometheusRule"]
src = yaml.safe_load(open(sys.argv[2]))
assert len(docs) == 1, f"{len(docs)} PrometheusRules rendered"
assert docs[0]["spec"] == src, "the PrometheusRule's spec is not files/alerts.rules.yml"
print(f"{sum(len(g['rules']) for g in src['groups'])} rules, the same in both")
EOF
}
check "the rendered PrometheusRule is files/alerts.rules.yml" same_rules

# Every metric the dashboard and the alerts query is registered by the
# manager (e2e 16 checks the same against a real /metrics scrape).
check "dashboard and alert metrics are registered by the manager's sources" python3 hack/chart-metrics.py
check "harness check: the metric check refuses an unknown metric (attune_resizes_total)" \
  refuses python3 hack/chart-metrics.py --extra-query 'sum(rate(attune_resizes_total[5m]))'

check "the dashboard ConfigMap holds valid dashboard JSON" sh -c \
  "'$helm' template attune '$chart' --set grafanaDashboard.enabled=true --show-only templates/metrics.yaml | python3 -c '
import sys, yaml, json
cm = [d for d in yaml.safe_load_all(sys.stdin) if d and d[\"kind\"] == \"ConfigMap\"][0]
d = json.loads(cm[\"data\"][\"attune-manager.json\"]); assert d[\"panels\"], \"no panels\"
print(len(d[\"panels\"]), \"panels\")'"

echo "chart: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
