#!/usr/bin/env bash
# The Helm chart (deploy/helm/attune) renders objects this apiserver accepts:
# `kubectl apply --server-side --dry-run=server` of the default install and of
# ci/all-on-values.yaml (every optional template: the webhook with the
# manager's own certificates, ServiceMonitor, PrometheusRule, dashboard,
# NetworkPolicy, PDB, AttuneDefaults, watchNamespaces, Secret reads) and of
# ci/cert-manager-values.yaml (the webhook with cert-manager's Issuers and
# Certificates), with the Prometheus Operator's and cert-manager's own CRDs
# taken from their Go modules and installed for the run only (cert-manager
# itself does not run: the dry run checks the objects, not their issuance).
# A bad AttuneDefaults is refused by the CRD, so the dry run really validates.
# watchNamespaces' Roles are applied for real and checked with `kubectl auth
# can-i` as the manager's ServiceAccount. Then the metric names
# the dashboard and alerts query are checked against a real manager's /metrics.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
chart=$REPO_ROOT/deploy/helm/attune
tools=$("$REPO_ROOT/hack/helm-tools.sh") || fail "hack/helm-tools.sh did not build helm"
work=$(mktemp -d "$ATTUNE_RUN/chart.XXXXXX")
at_exit "rm -rf '$work'"
export HELM_PLUGINS=$tools/plugins HELM_CACHE_HOME=$work/hc HELM_CONFIG_HOME=$work/hf HELM_DATA_HOME=$work/hd
render() { "$tools/helm" template attune "$chart" --namespace attune-system --kube-version "$K8S_VERSION" "$@"; }

# The Attune CRDs for real (the chart's crds/ are the kustomize ones, byte for
# byte: crd-gen --check), and the Prometheus Operator's and cert-manager's
# CRDs for this run.
apply_policy_crd
for f in "$tools"/monitoring-crds/*.yaml "$tools"/cert-manager-crds/*.yaml; do
  name=$(awk '/^  name: /{print $2; exit}' "$f")
  if ! k get crd "$name" >/dev/null 2>&1; then
    k apply --server-side -f "$f" >/dev/null || fail "the Prometheus Operator CRD $f was refused"
    at_exit "k delete crd '$name' --ignore-not-found --wait=false >/dev/null"
  fi
done
k wait --for=condition=Established --timeout=60s crd/servicemonitors.monitoring.coreos.com crd/prometheusrules.monitoring.coreos.com \
  crd/issuers.cert-manager.io crd/certificates.cert-manager.io >/dev/null \
  || fail "the Prometheus Operator and cert-manager CRDs never became Established"
# A dry run still needs the namespaces the objects live in.
for n in attune-system attune-chart-a attune-chart-b; do
  if ! k get namespace "$n" >/dev/null 2>&1; then
    k create namespace "$n" >/dev/null || fail "cannot create namespace $n"
    at_exit "k delete namespace '$n' --ignore-not-found --timeout=60s >/dev/null"
  fi
done

# dry_run NAME RENDERED: every object accepted by the apiserver, none left behind.
dry_run() {
  local name=$1 file=$2 want got out
  want=$(grep -c '^kind: ' "$file")
  out=$(k apply --server-side --force-conflicts --field-manager=attune-chart-e2e --dry-run=server -f "$file" 2>&1) \
    || { echo "$out" >&2; fail "$name: the apiserver refused the rendered chart"; }
  got=$(grep -c 'serverside-applied (server dry run)' <<<"$out")
  [ "$got" = "$want" ] || { echo "$out" >&2; fail "$name: $got of $want objects applied"; }
  log "$name: all $want objects accepted by a server-side dry run"
}
render --include-crds >"$work/default.yaml" || fail "helm template (defaults) failed"
dry_run "default values" "$work/default.yaml"
render --include-crds -f "$chart/ci/all-on-values.yaml" >"$work/all.yaml" || fail "helm template (all-on) failed"
for kind in MutatingWebhookConfiguration ServiceMonitor PrometheusRule ConfigMap NetworkPolicy PodDisruptionBudget AttuneDefaults; do
  grep -q "^kind: $kind$" "$work/all.yaml" || fail "ci/all-on-values.yaml renders no $kind"
done
[ "$(grep -c '^kind: Role$' "$work/all.yaml")" -ge 4 ] || fail "watchNamespaces renders no per-namespace Roles"
dry_run "ci/all-on-values.yaml" "$work/all.yaml"
render -f "$chart/ci/cert-manager-values.yaml" >"$work/cm.yaml" || fail "helm template (cert-manager) failed"
[ "$(grep -c '^kind: Certificate$' "$work/cm.yaml")" = 2 ] && [ "$(grep -c '^kind: Issuer$' "$work/cm.yaml")" = 2 ] \
  || fail "ci/cert-manager-values.yaml renders no Issuers and Certificates"
dry_run "ci/cert-manager-values.yaml" "$work/cm.yaml"
[ -z "$(k get mutatingwebhookconfiguration attune-webhook --ignore-not-found -o name)" ] || fail "the dry run left a MutatingWebhookConfiguration"
[ -z "$(k get servicemonitor -n attune-system attune-manager --ignore-not-found -o name)" ] || fail "the dry run left a ServiceMonitor"
[ -z "$(k get certificate -n attune-system attune-webhook --ignore-not-found -o name)" ] || fail "the dry run left a Certificate"

# watchNamespaces' RBAC split, applied for real under another release name
# (so nothing of another test's attune-manager RBAC is touched) and asked of
# the apiserver's authorizer as the ServiceAccount: the namespaced rights only
# in the watched namespaces, the cluster-scoped reads everywhere.
"$tools/helm" template rbac-check "$chart" --namespace attune-system --kube-version "$K8S_VERSION" -f "$chart/ci/all-on-values.yaml" \
  --show-only templates/serviceaccount.yaml --show-only templates/rbac.yaml --show-only templates/secret-reads-rbac.yaml >"$work/rbac.yaml" \
  || fail "helm template (RBAC) failed"
k apply -f "$work/rbac.yaml" >/dev/null || fail "the chart's RBAC was refused"
at_exit "k delete -f '$work/rbac.yaml' --ignore-not-found >/dev/null"
sa=system:serviceaccount:attune-system:rbac-check-attune-manager
can() { k auth can-i "$@" --as="$sa" >/dev/null 2>&1; }
wait_until 30 can patch pods --subresource=resize -n attune-chart-a || fail "the ServiceAccount cannot resize pods in a watched namespace"
can patch pods --subresource=resize -n attune-chart-b || fail "no pods/resize in the second watched namespace"
can patch attunepolicies.attune.io --subresource=status -n attune-chart-b || fail "no policy status writes in a watched namespace"
can get secrets -n attune-chart-a || fail "allowSecretReads: no Secret reads in a watched namespace"
can list nodes || fail "no cluster-wide node reads"
can watch namespaces || fail "no cluster-wide namespace watch"
can list attunedefaults.attune.io || fail "no AttuneDefaults reads"
can update leases.coordination.k8s.io -n attune-system || fail "no Lease in the release namespace"
! can patch pods --subresource=resize -n default || fail "pods/resize granted outside the watched namespaces"
! can list pods --all-namespaces || fail "pods listable cluster-wide with watchNamespaces"
! can get secrets -n default || fail "Secret reads granted outside the watched namespaces"
! can get secrets -n attune-system || fail "Secret reads granted in the release namespace, which is not watched"
log "watchNamespaces RBAC: namespaced rights only in attune-chart-a and attune-chart-b, cluster-scoped reads everywhere"
can create pods --subresource=eviction -n attune-chart-a || fail "no pods/eviction in a watched namespace (rbac.features.eviction)"
can patch horizontalpodautoscalers.autoscaling -n attune-chart-a || fail "no HPA patch in a watched namespace (rbac.features.hpaRetune)"
k delete -f "$work/rbac.yaml" --ignore-not-found >/dev/null

# A feature switched off in values drops its rule and only its rule: asked of
# the authorizer, the same ServiceAccount may no longer evict or patch HPAs,
# templates or ConfigMaps, and may still resize pods.
"$tools/helm" template rbac-check "$chart" --namespace attune-system --kube-version "$K8S_VERSION" \
  --set rbac.features.eviction=false --set rbac.features.hpaRetune=false \
  --set rbac.features.templatePersistence=false --set rbac.features.configMapExport=false \
  --show-only templates/serviceaccount.yaml --show-only templates/rbac.yaml >"$work/rbac-off.yaml" \
  || fail "helm template (features off) failed"
k apply -f "$work/rbac-off.yaml" >/dev/null || fail "the chart's RBAC with the features off was refused"
at_exit "k delete -f '$work/rbac-off.yaml' --ignore-not-found >/dev/null"
wait_until 30 can patch pods --subresource=resize -n attune-chart-a || fail "features off: pods/resize went too"
! can create pods --subresource=eviction -n attune-chart-a || fail "rbac.features.eviction=false still grants pods/eviction"
! can patch horizontalpodautoscalers.autoscaling -n attune-chart-a || fail "rbac.features.hpaRetune=false still grants HPA patches"
! can patch deployments.apps -n attune-chart-a || fail "rbac.features.templatePersistence=false still grants Deployment patches"
! can patch configmaps -n attune-chart-a || fail "rbac.features.configMapExport=false still grants ConfigMap writes"
can list deployments.apps -n attune-chart-a || fail "features off: the informers' Deployment reads went too"
log "features off in values: no eviction, HPA, template or ConfigMap writes; resizes and reads kept"

# Bad input is refused: an update strategy the AttuneDefaults CRD does not know.
render --set defaults.enabled=true --set defaults.updateStrategy.type=Sometimes --show-only templates/attunedefaults.yaml >"$work/bad.yaml" \
  || fail "helm template (bad defaults) failed"
if out=$(k apply --server-side --dry-run=server -f "$work/bad.yaml" 2>&1); then fail "a bad AttuneDefaults was accepted: $out"; fi
grep -q 'spec.updateStrategy.type' <<<"$out" || fail "the refusal does not name the field: $out"
log "a bad AttuneDefaults from values is refused by the CRD"

# The metric names the dashboard and the alerts query, against what a real
# manager exports. prometheus-cpp prints a family's HELP/TYPE only once it
# has a series, so the scrape is checked for the families it shows, and the
# rest against the registered families (hack/chart-metrics.py without args).
require_manager
start_manager
manager_metrics >"$work/metrics.txt" || fail "no /metrics from the manager"
python3 "$REPO_ROOT/hack/chart-metrics.py" --exported "$work/metrics.txt" --partial >&2 \
  || fail "the dashboard or the alerts query a metric the manager does not export"
log "every dashboard and alert metric the scrape shows is exported under that name"
