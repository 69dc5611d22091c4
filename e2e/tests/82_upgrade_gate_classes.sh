#!/usr/bin/env bash
# kubectl attune upgrade-gate against the real apiserver, the target being
# the next minor after the cluster's: fake addon Deployments whose images
# (or a label) carry versions, and matrices this test writes.
#   safe => exit 0, nothing on stdout; actionable => exit 2; held (waiting +
#   pinned + actionable) => exit 4, held wins; a node's containerd below the
#   target's minimum => actionable; a broken matrix => exit 3 naming line and
#   field; bad usage => 3, not 2; a downgrade => 3.
# It also applies deploy/kustomize/upgrade-gate for real and runs the gate as
# its ServiceAccount: the RBAC is enough, and the manifests are valid.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/upgrade_gate_lib.bash"
require_cli
test_namespace
tmp=$(mktemp -d); at_exit "rm -rf $tmp"

cur=$K8S_MINOR
tgt=$(next_minor "$cur")
log "cluster $K8S_VERSION, target $tgt"

fake_addon "$ns" calico attune.local/calico/kube-controllers:v3.29.1 0
fake_addon "$ns" kyverno attune.local/kyverno/kyverno:v1.14.2 0
fake_addon "$ns" gpu-operator attune.local/nvidia/gpu-operator:v25.3.4 0
fake_addon "$ns" eso attune.local/external-secrets:latest 0 0.14.1

# matrix FILE CALICO_ROWS KYVERNO_ROWS GPU_PINNED [EXTRA-TOP-LEVEL]
addon() {  # addon NAME CONTAINER-OR-LABEL ROWS [PINNED]
  local src
  if [ "$2" = label ]; then src="\"label\": \"app.kubernetes.io/version\""; else src="\"container\": \"$1\""; fi
  printf '"%s": {"source": {"kind": "Deployment", "namespace": "%s", "name": "%s", %s}, "versions": [%s]%s}' \
    "$1" "$ns" "$1" "$src" "$3" "${4:+, \"pinned\": true, \"pin_reason\": \"$4\"}"
}
row() { printf '{"version": "%s", "max_k8s": "%s"}' "$1" "$2"; }
matrix() {  # matrix FILE ADDON-JSON... ; containerd 2.0.0 for the target
  local f=$1; shift
  local IFS=,
  printf '{\n"containerd_min": {"%s": "2.0.0"},\n"addons": {\n%s\n}\n}\n' "$tgt" "$*" > "$f"
}
gate() { "$ATTUNE_CLI" upgrade-gate --target "$tgt" "$@"; }

# Safe: every addon has a row supporting the target.
matrix "$tmp/safe.json" \
  "$(addon calico c "$(row 3.29.0 "$tgt")")" \
  "$(addon kyverno c "$(row 1.14.0 "$tgt")")" \
  "$(addon gpu-operator c "$(row 25.3.0 "$tgt")" "driver work")" \
  "$(addon eso label "$(row 0.14.0 "$tgt")")"
set +e
out=$(gate --matrix "$tmp/safe.json" 2>"$tmp/err"); rc=$?
set -e
expect_eq "safe exit" "$rc" 0
expect_eq "safe stdout" "$out" ""
grep -q "safe (exit 0)" "$tmp/err" || fail "no safe summary on stderr: $(cat "$tmp/err")"
# --target defaults to the next minor.
set +e; "$ATTUNE_CLI" upgrade-gate --matrix "$tmp/safe.json" 2>"$tmp/err" >/dev/null; rc=$?; set -e
expect_eq "default target exit" "$rc" 0
grep -q -- "-> $tgt: safe" "$tmp/err" || fail "the default target is not $tgt: $(cat "$tmp/err")"

# Actionable only: calico 3.29.1 supports the current minor; 3.30.0 supports the target.
matrix "$tmp/actionable.json" \
  "$(addon calico c "$(row 3.29.0 "$cur"), $(row 3.30.0 "$tgt")")" \
  "$(addon kyverno c "$(row 1.14.0 "$tgt")")"
set +e; out=$(gate --matrix "$tmp/actionable.json" 2>/dev/null); rc=$?; set -e
expect_eq "actionable exit" "$rc" 2
expect_eq "actionable line" "$out" \
  "[ACTIONABLE] calico: upgrade calico to >= 3.30.0 (running v3.29.1 supports Kubernetes up to $cur)"

# Held: waiting (kyverno) and pinned (gpu-operator) beside the actionable one: held wins.
matrix "$tmp/held.json" \
  "$(addon calico c "$(row 3.29.0 "$cur"), $(row 3.30.0 "$tgt")")" \
  "$(addon kyverno c "$(row 1.14.0 "$cur")")" \
  "$(addon gpu-operator c "$(row 25.3.0 "$cur"), $(row 26.3.0 "$tgt")" "needs a newer driver")" \
  "$(addon eso label "$(row 0.14.0 "$tgt")")"
set +e; out=$(gate --matrix "$tmp/held.json" 2>/dev/null); rc=$?; set -e
expect_eq "held exit" "$rc" 4
grep -qx "\[ACTIONABLE\] calico: upgrade calico to >= 3.30.0 .*" <<<"$out" || fail "no actionable calico line: $out"
grep -qx "\[WAITING\] kyverno: no released kyverno supports Kubernetes $tgt yet .*" <<<"$out" || fail "no waiting kyverno line: $out"
grep -qx "\[PINNED\] gpu-operator: pinned: needs a newer driver .*" <<<"$out" || fail "no pinned gpu-operator line: $out"
expect_eq "held lines" "$(wc -l <<<"$out")" 3
set +e; json=$(gate --matrix "$tmp/held.json" -o json 2>/dev/null); rc=$?; set -e
expect_eq "held -o json exit" "$rc" 4
expect_eq "held -o json" "$(jq -c '[.verdict, .exitCode, .target, ([.reasons[].class] | sort)]' <<<"$json")" \
  "[\"held\",4,\"$tgt\",[\"ACTIONABLE\",\"PINNED\",\"WAITING\"]]"

# containerd: a node below the target's minimum (2.0.0) is actionable.
k apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Node
metadata:
  name: e2e-old-containerd-$ns
  labels: {attune.io/kubesim: "true", kubernetes.io/hostname: e2e-old-containerd}
spec:
  taints: [{key: attune.io/e2e-dedicated, value: "true", effect: NoSchedule}]
YAML
at_exit "k delete node e2e-old-containerd-$ns --wait=false >/dev/null 2>&1"
k patch node "e2e-old-containerd-$ns" --subresource=status --type=merge -p \
  "{\"status\":{\"nodeInfo\":{\"containerRuntimeVersion\":\"containerd://1.7.20\",\"kubeletVersion\":\"$K8S_VERSION\",\"machineID\":\"x\",\"systemUUID\":\"x\",\"bootID\":\"x\",\"kernelVersion\":\"6.1\",\"osImage\":\"e2e\",\"kubeProxyVersion\":\"\",\"operatingSystem\":\"linux\",\"architecture\":\"amd64\"}}}" >/dev/null
wait_eq 30 "containerd://1.7.20" k get node "e2e-old-containerd-$ns" -o jsonpath='{.status.nodeInfo.containerRuntimeVersion}' \
  || fail "could not set the node's containerd version"
set +e; out=$(gate --matrix "$tmp/safe.json" 2>/dev/null); rc=$?; set -e
expect_eq "containerd exit" "$rc" 2
expect_eq "containerd line" "$out" \
  "[ACTIONABLE] e2e-old-containerd-$ns: upgrade containerd 1.7.20 to >= 2.0.0, the minimum for Kubernetes $tgt"
k delete node "e2e-old-containerd-$ns" >/dev/null

# A broken matrix is a gate error naming the line and the field.
sed 's/"max_k8s": "'"$tgt"'"}/"max_k8s": "'"${tgt/./}"'"}/' "$tmp/safe.json" > "$tmp/bad-field.json"
set +e; out=$(gate --matrix "$tmp/bad-field.json" 2>"$tmp/err"); rc=$?; set -e
expect_eq "bad field exit" "$rc" 3
grep -q "bad-field.json line 4: addons.calico.versions\[0\].max_k8s: expected a Kubernetes minor" "$tmp/err" \
  || fail "unclear bad-field error: $(cat "$tmp/err")"
head -n 3 "$tmp/safe.json" > "$tmp/truncated.json"
set +e; gate --matrix "$tmp/truncated.json" >/dev/null 2>"$tmp/err"; rc=$?; set -e
expect_eq "truncated exit" "$rc" 3
grep -q "truncated.json line 3: addons: the JSON ends early" "$tmp/err" || fail "unclear syntax error: $(cat "$tmp/err")"
set +e; gate --matrix "$tmp/missing.json" >/dev/null 2>&1; rc=$?; set -e
expect_eq "missing matrix exit" "$rc" 3
# Bad usage and a downgrade are gate errors too (2 would read as actionable).
set +e; "$ATTUNE_CLI" upgrade-gate --bogus >/dev/null 2>&1; rc=$?; set -e
expect_eq "bad usage exit" "$rc" 3
set +e; "$ATTUNE_CLI" upgrade-gate --matrix "$tmp/safe.json" --target 1.20 >/dev/null 2>&1; rc=$?; set -e
expect_eq "downgrade exit" "$rc" 3
# An apiserver that cannot be reached is a gate error, never safe.
set +e; KUBECONFIG=$tmp/nope "$ATTUNE_CLI" upgrade-gate --matrix "$tmp/safe.json" >/dev/null 2>&1; rc=$?; set -e
expect_eq "no kubeconfig exit" "$rc" 3

# The kustomization, applied for real; the gate as its ServiceAccount.
k apply -k "$REPO_ROOT/deploy/kustomize/upgrade-gate" >/dev/null || fail "deploy/kustomize/upgrade-gate does not apply"
at_exit "k delete -k '$REPO_ROOT/deploy/kustomize/upgrade-gate' --wait=false >/dev/null 2>&1"
k -n attune-upgrade get cronjob attune-upgrade-detector >/dev/null || fail "no CronJob"
k -n attune-upgrade get configmap attune-upgrade-matrix -o jsonpath='{.data.addon-compat\.json}' | jq -e .addons >/dev/null \
  || fail "the matrix ConfigMap does not hold the matrix"
wait_until 30 k -n attune-upgrade get serviceaccount attune-upgrade-gate || fail "no ServiceAccount"
token=$(k -n attune-upgrade create token attune-upgrade-gate --duration=10m)
kubeconfig_for_token "$token" "$tmp/sa.kubeconfig" attune-upgrade
set +e; out=$(KUBECONFIG=$tmp/sa.kubeconfig gate --matrix "$tmp/held.json" 2>"$tmp/err"); rc=$?; set -e
expect_eq "held exit as the ServiceAccount" "$rc" 4
expect_eq "held lines as the ServiceAccount" "$(wc -l <<<"$out")" 3
# Least privilege: the ServiceAccount cannot read Secrets or write Deployments.
expect_eq "SA reads secrets" "$(KUBECONFIG=$tmp/sa.kubeconfig k auth can-i get secrets -A)" no
expect_eq "SA patches deployments" "$(KUBECONFIG=$tmp/sa.kubeconfig k auth can-i patch deployments -n "$ns")" no
