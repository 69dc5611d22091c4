#!/usr/bin/env bash
# The admission webhook under a flood (bench/RESULTS.md, "The webhook under a
# flood"). Needs a local cluster (hack/cluster.sh up):
#   bench/webhook_flood.sh [PODS [RATE [SECONDS]]]
# Creates PODS unscheduled pods (the manager caches them), a Deployment with
# a Manual-source policy, starts attune-manager with --webhook, and runs
# bench/webhook_flood.py against its webhook port: RATE well-formed pod
# CREATE reviews per second (default 200: ten times the 20 requests per
# second kube-controller-manager's client sends by default) over keep-alive
# TLS, mixed with oversized, slow-loris, slow-body, malformed, wrong
# Content-Type, no-handshake and churning clients. Meanwhile it samples the
# manager's VmHWM (peak RSS) and changes the policy's Manual recommendation
# twice, timing until kubectl shows each in the status: reconciling goes on.
# Figures, not assertions.
set -euo pipefail
. "$(dirname "$0")/../e2e/lib.sh"
. "$E2E_ROOT/tests/70_manager_lib.bash"
. "$E2E_ROOT/tests/51_webhook_lib.bash"
PODS=${1:-1000} RATE=${2:-200} SECS=${3:-60}
webhook_test
status_of() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$MGR_PID/status"; }

echo "== $PODS pods"
unscheduled_pods "$opns" "$PODS"
deployment_with_policy web '{containers: [{name: app, image: attune.local/pause:1}, {name: log-shipper, image: attune.local/pause:1}]}'
set_recommendation web Deployment web app 320m 410Mi
MGR_READY_TIMEOUT=300 start_webhook_manager
wait_webhook_called
wait_until 60 recommendation_published web web || fail "the manager published no recommendation for web"
wait_until 120 sh -c "[ \"\$(curl -fsS http://127.0.0.1:$MGR_PORT/metrics | awk '\$1 == \"attune_kube_informer_objects{resource=\\\"pods\\\"}\" { print \$2 }')\" -ge $PODS ]" \
  || fail "the pod cache never held $PODS pods"
rs=$(replicaset_of web) hash=$(template_hash_of web)
webhook_ca_bundle > "$ATTUNE_RUN/flood-ca.pem"
echo "== manager pid $MGR_PID, pods cached: $(metric_value 'attune_kube_informer_objects{resource="pods"}'), VmRSS $(status_of VmRSS) KiB, VmHWM $(status_of VmHWM) KiB before the flood"
python3 "$REPO_ROOT/bench/webhook_flood.py" --port "$WEBHOOK_PORT" --ca "$ATTUNE_RUN/flood-ca.pem" \
  --namespace "$ns" --replicaset "$rs" --hash "$hash" --rate "$RATE" --seconds "$SECS" > "$ATTUNE_RUN/flood.json" & flood=$!

rec_cpu() { k -n "$ns" get attunepolicy web -o json | jq -r '.status.recommendations[0].containers[] | select(.name == "app") | .recommended.cpuRequest'; }
reconcile_times=()
for cpu in 330m 340m; do
  sleep $(( SECS / 3 ))
  t0=$(date +%s.%N)
  set_recommendation web Deployment web app "$cpu" 410Mi
  wait_eq 30 "$cpu" rec_cpu || echo "!! the status never showed $cpu during the flood (got $(rec_cpu))"
  reconcile_times+=("$cpu: $(echo "$(date +%s.%N) - $t0" | bc | cut -c1-5) s")
done
wait "$flood"
echo "== flood: $(cat "$ATTUNE_RUN/flood.json")"
echo "== manager peak RSS (VmHWM) $(status_of VmHWM) KiB, VmRSS now $(status_of VmRSS) KiB, still running: $(kill -0 "$MGR_PID" && echo yes)"
echo "== reconciling during the flood (Manual recommendation change -> status, read with kubectl): ${reconcile_times[*]}"
echo "== server events: $(manager_metrics | grep '^attune_webhook_connection_events_total' | sed 's/attune_webhook_connection_events_total//' | tr '\n' ' ')"
echo "== open connections now: $(metric_value attune_webhook_open_connections)"
k delete namespace "$opns" --wait=false >/dev/null 2>&1 || true
