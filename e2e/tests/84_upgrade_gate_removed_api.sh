#!/usr/bin/env bash
# Removed APIs are actionable, seen through the apiserver itself.
# What the cluster's minor serves by default that the next minors remove:
# nothing (since 1.24 new beta APIs are off by default, and the old ones are
# gone). So this test starts its own small control plane of the same minor
# that serves a beta API the coming releases remove, enabled with
# --runtime-config as a cluster that turned it on would be, requests it, and
# checks that:
#   - the apiserver's apiserver_requested_deprecated_apis{removed_release}
#     (read by kubectl from /metrics) records the request;
#   - the gate turns that metric into an ACTIONABLE reason (exit 2) for a
#     target at or after the removal, with no api_removals entry for it;
#   - the matrix's api_removals table flags a served resource nobody requested;
#   - a target before the removal is not blocked by it (exit 0).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/upgrade_gate_lib.bash"
require_local "starts a second local control plane"
require_cli
# minor -> group-version to enable, resource to request, its removal release
# (the k8s.io/api prerelease-lifecycle tags; checked on the real apiserver of
# each listed minor). Other minors: not checked, skipped.
case $K8S_MINOR in
  1.35|1.36) gv=networking.k8s.io/v1beta1 resource=servicecidrs other=ipaddresses removed=1.37;;
  *) skip "no beta API with a known removal checked on $K8S_MINOR";;
esac

if [ -n "${ATTUNE_REMOVED_API_RUN:-}" ]; then run2=$ATTUNE_REMOVED_API_RUN; mkdir -p "$run2"
else run2=$(mktemp -d /tmp/attune-removed-api.XXXXXX); at_exit "rm -rf $run2"; fi
base2=${ATTUNE_REMOVED_API_PORT_BASE:-$(extra_port_base 5020)}
cluster2() { ATTUNE_RUN=$run2 CLUSTER_DIR=$run2/cluster ATTUNE_PORT_BASE=$base2 "$REPO_ROOT/hack/cluster.sh" "$@"; }
at_exit "cluster2 down >/dev/null 2>&1"
log "starting a 1-node $K8S_MINOR control plane serving $gv in $run2"
cluster2 up --k8s "$K8S_MINOR" --nodes 1 --runtime-config "$gv=true" >"$run2/up.log" 2>&1 \
  || { tail -20 "$run2/up.log" >&2; fail "the control plane with --runtime-config $gv=true did not come up"; }
export KUBECONFIG=$run2/cluster/kubeconfig
tmp=$run2/work; mkdir -p "$tmp"

served=$(k api-versions)  # not piped into grep -q: with pipefail, kubectl's SIGPIPE would fail the check
grep -qx "$gv" <<<"$served" || fail "$gv is not served despite --runtime-config"
k get --raw "/apis/$gv" | jq -e --arg r "$resource" '[.resources[].name] | index($r)' >/dev/null \
  || fail "$gv does not serve $resource"
requested() {
  k get --raw /metrics | grep -F 'apiserver_requested_deprecated_apis{' | grep -F "group=\"${gv%/*}\"" \
    | grep -F "resource=\"$1\"" | grep -F "version=\"${gv#*/}\"" | grep -F "removed_release=\"$removed\"" | grep -c ' 1$'
}
expect_eq "recorded before any request" "$(requested "$resource")" 0
k get "$resource.${gv#*/}.${gv%/*}" >/dev/null 2>"$tmp/warn" || fail "cannot list $resource through $gv"
grep -qi "deprecated" "$tmp/warn" || log "note: no deprecation warning printed: $(cat "$tmp/warn")"
wait_eq 10 1 requested "$resource" || fail "the apiserver did not record the request in apiserver_requested_deprecated_apis"

gate() { "$ATTUNE_CLI" upgrade-gate --matrix "$1" --target "$2"; }
# An old removal only: the table cannot be what flags the new one.
echo '{"api_removals": {"1.22": ["extensions/v1beta1/ingresses"]}}' > "$tmp/metric-only.json"
set +e; out=$(gate "$tmp/metric-only.json" "$removed" 2>"$tmp/err"); rc=$?; set -e
expect_eq "gate exit with the API requested" "$rc" 2
expect_eq "reason from the metric" "$out" \
  "[ACTIONABLE] $gv $resource: requested from this apiserver (apiserver_requested_deprecated_apis) and removed in Kubernetes $removed; move its clients and stored manifests to a supported version"

# The removal table flags what is served, requested or not.
echo "{\"api_removals\": {\"$removed\": [\"$gv/$other\"]}}" > "$tmp/table.json"
set +e; out=$(gate "$tmp/table.json" "$removed" 2>"$tmp/err"); rc=$?; set -e
expect_eq "gate exit with the table" "$rc" 2
grep -qxF "[ACTIONABLE] $gv $other: served by this apiserver and removed in Kubernetes $removed (api_removals); migrate what uses it, then stop serving it (--runtime-config)" <<<"$out" \
  || fail "no table reason for $other: $out"
grep -qF "[ACTIONABLE] $gv $resource: requested" <<<"$out" || fail "no metric reason beside the table's: $out"

# Before the removal release, the same cluster is not blocked by it.
before="1.$(( ${removed#1.} - 1 ))"
set +e; out=$(gate "$tmp/table.json" "$before" 2>"$tmp/err"); rc=$?; set -e
expect_eq "gate exit for $before" "$rc" 0
expect_eq "reasons for $before" "$out" ""

# Harness check: down leaves none of that cluster's processes behind, by
# the ports they held (a process without the cluster dir on its command line
# would escape a check by name).
cluster2 down >/dev/null 2>&1
sleep 1
for p in $(seq "$base2" $((base2 + 9))); do
  if ss -Htln "sport = :$p" | grep -q .; then ss -Htlnp "sport = :$p" >&2; fail "port $p still in use after cluster.sh down"; fi
done
