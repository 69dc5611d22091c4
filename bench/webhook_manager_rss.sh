#!/usr/bin/env bash
# The manager's RSS with the admission webhook under load and many pods in
# its cache (bench/RESULTS.md). Needs a local cluster (hack/cluster.sh up):
#   bench/webhook_manager_rss.sh [PODS [RPS [SECONDS]]]
# Creates PODS unscheduled pods (Pending: only apiserver and etcd work),
# starts attune-manager with --webhook, and drives RPS CREATE reviews at its
# webhook port for SECONDS with build/bench/webhook_bench --target, printing
# the manager's VmRSS before, during and after. Figures, not assertions.
# RT=1 runs the manager and the load generator SCHED_FIFO (chrt), so a
# machine shared with other work does not decide the latency figures.
set -euo pipefail
. "$(dirname "$0")/../e2e/lib.sh"
. "$E2E_ROOT/tests/70_manager_lib.bash"
. "$E2E_ROOT/tests/51_webhook_lib.bash"
PODS=${1:-5000} RPS=${2:-2000} SECS=${3:-60}
BENCH=$REPO_ROOT/${BUILD:-build}/bench/webhook_bench
require_built "$BENCH" webhook_bench
webhook_test
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$MGR_PID/status"; }

echo "== $PODS pods"
unscheduled_pods "$opns" "$PODS"
deployment_with_policy web '{containers: [{name: app, image: attune.local/pause:1}, {name: log-shipper, image: attune.local/pause:1}]}' \
  '{startupBoost: {multiplier: "1.5", duration: 2m}}' '{controlledValues: RequestsAndLimits}'
set_recommendation web Deployment web app 320m 410Mi "" 820Mi
MGR_READY_TIMEOUT=300 start_webhook_manager --kube-qps 100 --kube-burst 200
wait_webhook_called
wait_until 60 recommendation_published web web || fail "the manager published no recommendation for web"
wait_until 120 sh -c "[ \"\$(curl -fsS http://127.0.0.1:$MGR_PORT/metrics | awk '\$1 == \"attune_kube_informer_objects{resource=\\\"pods\\\"}\" { print \$2 }')\" -ge $PODS ]" \
  || fail "the pod cache never held $PODS pods"
rs=$(replicaset_of web) hash=$(template_hash_of web)
webhook_ca_bundle > "$ATTUNE_RUN/bench-ca.pem"
echo "== manager pid $MGR_PID, pods cached: $(metric_value 'attune_kube_informer_objects{resource="pods"}'), RSS before load: $(rss) KiB"
rt=()
if [ "${RT:-0}" = 1 ]; then chrt -f -p 10 "$MGR_PID"; rt=(chrt -f 10); fi
"${rt[@]}" "$BENCH" rate "$RPS" "$SECS" 16 --target "127.0.0.1:$WEBHOOK_PORT" --ca "$ATTUNE_RUN/bench-ca.pem" \
  --namespace "$ns" --replicaset "$rs" --hash "$hash" & bench=$!
peak=0
while kill -0 "$bench" 2>/dev/null; do r=$(rss); [ "$r" -gt "$peak" ] && peak=$r; sleep 1; done
wait "$bench"
echo "== RSS during load: peak $peak KiB; after: $(rss) KiB"
echo "== manager's own count: $(metric_sum attune_webhook_admissions_total 'result="mutated"') mutated reviews"
k delete namespace "$opns" --wait=false >/dev/null 2>&1 || true
