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

# The optional features' RBAC (rbac.features.*; kustomize: rbac/features.yaml
# and components/without-<feature>). The comparisons above are object by
# object, so each role, the manager's and every feature's, is the same rule
# for rule in both. Each feature switched off is the base with its component,
# object by object; and against the default render exactly that feature's
# role and binding are gone (with watchNamespaces: its Role and RoleBinding in
# every watched namespace), no remaining role grants any of its (group,
# resource, verb), and every other object is unchanged.
features=(eviction:eviction templatePersistence:template-persistence hpaRetune:hpa-retune configMapExport:configmap-export)
overlay() { # DIR COMPONENT...: a kustomization of the base plus those components
  local dir=$1 c; shift; mkdir -p "$dir"
  { echo "resources: [$(realpath --relative-to="$dir" deploy/kustomize/base)]"; echo "components:"
    for c in "$@"; do echo "- $(realpath --relative-to="$dir" "deploy/kustomize/components/$c")"; done; } >"$dir/kustomization.yaml"
}
feature_off() { # ON.yaml OFF.yaml SUFFIX: what switching the feature off changed
  python3 - "$@" <<'EOF'
import sys, yaml
def load(p):
    return {(d["kind"], d["metadata"].get("namespace", ""), d["metadata"]["name"]): d
            for d in yaml.safe_load_all(open(p)) if d}
def grants(objs):
    return {(k[1], g, r, v) for k, d in objs.items() if k[0] in ("ClusterRole", "Role") and k[2].startswith("attune-manager")
            for rule in d.get("rules", []) for g in rule.get("apiGroups", []) for r in rule.get("resources", [])
            for v in rule.get("verbs", [])}
on, off, name = load(sys.argv[1]), load(sys.argv[2]), "attune-manager-" + sys.argv[3]
want = {k for k in on if k[2] == name}
assert want and len(want) % 2 == 0, f"the default render has no role of its own for {name}: {sorted(want)}"
assert set(on) - set(off) == want, f"gone: {sorted(set(on) - set(off))}, expected {sorted(want)}"
assert not set(off) - set(on), f"new objects: {sorted(set(off) - set(on))}"
changed = sorted(k for k in off if off[k] != on[k])
assert not changed, f"changed: {changed}"
feature = grants({k: on[k] for k in want})
assert feature, f"{name} grants nothing"
left = feature & grants(off)
assert not left, f"still granted with the feature off: {sorted(left)}"
assert grants(on) - grants(off) == feature, f"other grants lost: {sorted(grants(on) - grants(off) - feature)}"
where = ", ".join(sorted({k[1] or "cluster-wide" for k in want}))
print(f"{name}: {len(want)} objects gone ({where}), {len(feature)} grants gone, {len(off)} objects unchanged")
EOF
}
rbac_off() { # ON.yaml SUFFIX HELM-ARGS...: the chart's RBAC with HELM-ARGS, against ON
  local on=$1 suffix=$2; shift 2
  render --show-only templates/rbac.yaml "$@" >"$work/rbac-off.yaml" && feature_off "$on" "$work/rbac-off.yaml" "$suffix"
}
render --show-only templates/rbac.yaml >"$work/rbac-on.yaml"
render --show-only templates/rbac.yaml --set 'watchNamespaces={team-a,team-b}' >"$work/rbac-ns-on.yaml"
all_off=()
for pair in "${features[@]}"; do
  value=${pair%%:*} suffix=${pair#*:}
  all_off+=(--set "rbac.features.$value=false")
  overlay "$work/without-$suffix" "without-$suffix"
  check "helm template (rbac.features.$value=false) = kubectl kustomize base + components/without-$suffix" \
    same_install "without-$suffix" "$work/without-$suffix" "${ns_only[@]}" "${metrics_only[@]}" -- --set "rbac.features.$value=false"
  check "rbac.features.$value=false: attune-manager-$suffix and its binding gone, every other rule unchanged" \
    rbac_off "$work/rbac-on.yaml" "$suffix" --set "rbac.features.$value=false"
  check "rbac.features.$value=false with watchNamespaces: its Role pair gone from each namespace, the rest unchanged" \
    rbac_off "$work/rbac-ns-on.yaml" "$suffix" --set 'watchNamespaces={team-a,team-b}' --set "rbac.features.$value=false"
done
overlay "$work/without-all" without-eviction without-template-persistence without-hpa-retune without-configmap-export
check "helm template (every rbac.features.* false) = kubectl kustomize base + the four without-* components" \
  same_install without-all "$work/without-all" "${ns_only[@]}" "${metrics_only[@]}" -- "${all_off[@]}"
# ... and the comparison sees a feature's role that only one side renders.
feature_differs() {
  [ -s "$work/base-kustomize.yaml" ] && render --include-crds --set rbac.features.eviction=false >"$work/helm-noevict.yaml" || return 1
  python3 hack/chart-compare.py "$work/helm-noevict.yaml" "$work/base-kustomize.yaml" "${ns_only[@]}" "${metrics_only[@]}" >"$work/diff.out"
  [ $? = 1 ] && grep -q '^chart-compare: only the kustomize base renders ClusterRole/attune-manager-eviction$' "$work/diff.out"
}
check "harness check: the comparison reports a feature role only the base renders (rbac.features.eviction=false)" feature_differs
check "helm lint refuses rbac.features.eviction=maybe" refuses "$helm" lint "$chart" --set rbac.features.eviction=maybe
check "helm lint refuses a misspelt feature (rbac.features.evictions)" refuses "$helm" lint "$chart" --set rbac.features.evictions=false

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
