#!/usr/bin/env bash
# The whole chain, for real: a 1.35 control plane of its own (the suite's
# cluster is 1.36) with fake addons that all support 1.36 and a workload.
# The detector spawns the preflight; the gate says safe (exit 0), both gauges
# are pushed as 0 and the upgrade Job is spawned; the upgrade step runs the
# pluggable upgrade command, here `hack/cluster.sh upgrade --to 1.36`
# (kubeadm on a real cluster), waits for 1.36 and spawns postflight, which
# checks the version and the nodes and clears the gauges. Afterwards the
# cluster really is 1.36 (kubectl version), with the same nodes Ready and
# the same pods Running, and both gauges read 0 in Prometheus.
# It needs the 1.35 binaries besides 1.36's. A truly cold 1.35 build took
# 1,352 s here (bench/RESULTS.md), which would take a cold `make test` past
# 45 minutes, so it runs in `make e2e-matrix` (which builds every minor
# anyway), once, beside the 1.36 suite; E2E_UPGRADE=1 runs it by hand.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/upgrade_gate_lib.bash"
require_local "starts and upgrades a second local control plane"
require_cli
from=1.35 to=1.36
[ "${E2E_MATRIX:-0}" = 1 ] || [ "${E2E_UPGRADE:-0}" = 1 ] \
  || skip "needs the $from binaries too: runs in make e2e-matrix (or with E2E_UPGRADE=1)"
[ "$K8S_MINOR" = "$to" ] || skip "runs once, beside the $to suite (this suite is $K8S_MINOR)"

if [ -n "${ATTUNE_UPGRADE_RUN:-}" ]; then run2=$ATTUNE_UPGRADE_RUN; mkdir -p "$run2"
else run2=$(mktemp -d /tmp/attune-upgrade.XXXXXX); at_exit "rm -rf $run2"; fi
base2=${ATTUNE_UPGRADE_PORT_BASE:-$(extra_port_base 5040)}
cluster2() { ATTUNE_RUN=$run2 CLUSTER_DIR=$run2/cluster ATTUNE_PORT_BASE=$base2 "$REPO_ROOT/hack/cluster.sh" "$@"; }
at_exit "cluster2 down >/dev/null 2>&1"
start=$(date +%s)
log "starting a $from control plane in $run2"
cluster2 up --k8s "$from" --nodes 2 >"$run2/up.log" 2>&1 || { tail -20 "$run2/up.log" >&2; fail "the $from control plane did not come up"; }
log "up in $(( $(date +%s) - start ))s"
export KUBECONFIG=$run2/cluster/kubeconfig
KUBECTL=$run2/cluster/bin/kubectl  # follows the cluster's minor across the upgrade
# shellcheck disable=SC1091
. "$run2/cluster/env"               # its Prometheus and Pushgateway
expect_eq "server before" "$(k version -o json | jq -r .serverVersion.gitVersion)" "$(awk -v m=$from '$1==m {print $2}' "$REPO_ROOT/hack/k8s-versions.txt")"

ns=e2e-upgrade-chain  # goes away with the cluster
k create namespace "$ns" >/dev/null
wait_until 60 k -n "$ns" get serviceaccount default || fail "no default serviceaccount"
PUSH_JOB=attune-upgrade
tmp=$run2/work; mkdir -p "$tmp"

fake_addon "$ns" calico attune.local/calico/kube-controllers:v3.30.1
fake_addon "$ns" kyverno attune.local/kyverno/kyverno:v1.15.0
fake_addon "$ns" web attune.local/web:1.0 2
src() { printf '{"kind": "Deployment", "namespace": "%s", "name": "%s", "container": "%s"}' "$ns" "$1" "$1"; }
cat > "$tmp/matrix.json" <<JSON
{"containerd_min": {"$to": "2.0.0"},
 "addons": {
  "calico": {"source": $(src calico), "versions": [{"version": "3.29.0", "max_k8s": "$from"}, {"version": "3.30.0", "max_k8s": "$to"}]},
  "kyverno": {"source": $(src kyverno), "versions": [{"version": "1.14.0", "max_k8s": "$from"}, {"version": "1.15.0", "max_k8s": "$to"}]}
}}
JSON
upgrade_cmd="ATTUNE_RUN=$run2 CLUSTER_DIR=$run2/cluster ATTUNE_PORT_BASE=$base2 $REPO_ROOT/hack/cluster.sh upgrade --to {target}"
chain_template "$tmp/job.json" "$ns" "$PUSH_JOB" "$tmp/matrix.json" "--upgrade-command=$upgrade_cmd" "--upgrade-timeout=10m"

pods_view() { k -n "$ns" get pods -l app=web -o json | jq -c '[.items[] | {uid: .metadata.uid, node: .spec.nodeName, phase: .status.phase}] | sort_by(.uid)'; }
running_web() { k -n "$ns" get pods -l app=web -o json | jq '[.items[] | select(.status.phase == "Running")] | length'; }
wait_eq 60 2 running_web || fail "the web pods never ran"
pods_before=$(pods_view)
nodes_before=$(k get nodes -o jsonpath='{.items[*].metadata.name}')

log "detector"
detect "$ns" "$tmp/job.json" || fail "the detector failed"
pre=$(chain_jobs "$ns" preflight)
[ -n "$pre" ] || fail "no preflight Job for $to"
run_chain_job "$ns" "$pre"
expect_eq "preflight exit" "$STEP_RC" 0
expect_eq "preflight reasons (safe)" "$(cat "$STEP_OUT")" ""
gauge() { prom_value "k8s_upgrade_$1{job=\"$PUSH_JOB\",target=\"$to\"}"; }
wait_eq 30 0 gauge blocked || fail "k8s_upgrade_blocked is '$(gauge blocked)' after a safe preflight, want 0"
expect_eq "k8s_upgrade_held after a safe preflight" "$(gauge held)" 0

up=$(chain_jobs "$ns" upgrade)
[ -n "$up" ] || fail "the safe preflight did not spawn the upgrade Job"
log "upgrade Job $up"
t_up=$(date +%s)
run_chain_job "$ns" "$up"
[ "$STEP_RC" = 0 ] || { tail -30 "$UPGRADE_LOGS/$up.err" >&2; fail "the upgrade step exited $STEP_RC"; }
log "upgrade step took $(( $(date +%s) - t_up ))s"

post=$(chain_jobs "$ns" postflight)
[ -n "$post" ] || fail "the upgrade step did not spawn postflight"
run_chain_job "$ns" "$post"
expect_eq "postflight exit" "$STEP_RC" 0

want=$(awk -v m=$to '$1==m {print $2}' "$REPO_ROOT/hack/k8s-versions.txt")
expect_eq "server after (kubectl version)" "$(k version -o json | jq -r .serverVersion.gitVersion)" "$want"
expect_eq "nodes after" "$(k get nodes -o jsonpath='{.items[*].metadata.name}')" "$nodes_before"
for n in $nodes_before; do node_is_ready "$n" || fail "node $n is not Ready after the upgrade"; done
expect_eq "web pods after (same uids, nodes, Running)" "$(pods_view)" "$pods_before"
for j in "$pre" "$up" "$post"; do expect_eq "Job $j" "$(job_state "$ns" "$j")" Complete; done
wait_eq 30 0 gauge blocked || fail "k8s_upgrade_blocked is '$(gauge blocked)' after postflight"
expect_eq "k8s_upgrade_held after postflight" "$(gauge held)" 0
log "whole case: $(( $(date +%s) - start ))s"
