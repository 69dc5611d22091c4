#!/usr/bin/env bash
# The core against the real apiserver: for random pods (with and without
# pod-level spec.resources, sidecars, Guaranteed and Burstable shapes) and
# random container targets, every /resize body plan_resize returns must be
# accepted by the apiserver. Several rounds per pod, so later rounds plan on
# already-resized pods. On 1.33 this also proves the memory-limit clamp: an
# unclamped negative-control round must see rejections (1.32 accepts them). Skips have
# teeth too: for each InPlaceResizeWouldChangeQoSClass / envelope_constraint skip the naive body
# (targets without the envelope and QoS guards) must be refused.
#
# The pods run on a dedicated, large simulated node, so node room never
# decides an outcome here (resize states have their own test).
#   e2e/run.sh 65_    (DRIVER=path/to/plan_resize_driver to use another build)
. "$(dirname "$0")/../lib.sh"
require_local
DRIVER=${DRIVER:-$REPO_ROOT/build/test/core/plan_resize_driver}
PODS=${PODS:-50}
ROUNDS=${ROUNDS:-4}
SEED=${SEED:-20261129}
require_built "$DRIVER" plan_resize_driver
test_namespace
node="e2e-plan-$RANDOM"; bare="e2e-plan-nodecl-$RANDOM"
sim_node "$node" 1000 4000Gi
# A second node that declares nothing: the apiserver refuses pod-level
# resizes there, so plan_resize must skip envelope raises for its pods.
sim_node "$bare" 1000 4000Gi '[]'
tmp=$(mktemp -d)
at_exit "rm -rf $tmp"

minor=${K8S_MINOR#1.}
k version -o json > "$tmp/version.json"
k get nodes -o json > "$tmp/nodes.json"
allow_decrease=$([ "$minor" -ge 34 ] && echo true || echo false)

"$DRIVER" pods "$SEED" "$PODS" \
  | jq --arg n "$node" --arg b "$bare" --argjson minor "$minor" '.items |= [to_entries[] | .value
      | .spec.nodeName = (if (.metadata.name | ltrimstr("plan-") | tonumber) % 3 == 2 then $b else $n end)
      | .spec.tolerations = [{"key": "attune.io/e2e-dedicated", "operator": "Exists"}]
      # 1.32 refuses resizePolicy on init containers (sidecar resize came in 1.33).
      | if $minor < 33 and .spec.initContainers then .spec.initContainers |= map(del(.resizePolicy)) else . end]' \
  | k -n "$ns" apply -f - >/dev/null
all_running() {
  k -n "$ns" get pods -o json | jq -e --argjson n "$PODS" '(.items | length) == $n and all(.items[];
    .status.phase == "Running" and (.status.containerStatuses // [] | length > 0) and all(.status.containerStatuses[]; .resources != null))' >/dev/null
}
wait_until 180 all_running || fail "pods never all ran: $(k -n "$ns" get pods --no-headers | grep -vc Running) not running"

cases=0 planned=0 accepted=0 envelope=0 clamped=0 guarded=0 guard_wrong=0
declare -A skips=()
round() {  # round N ALLOW_DECREASE -> sets rejected
  local line name body out
  rejected=0
  while IFS= read -r line; do
    cases=$((cases + 1))
    name=$(jq -r .name <<<"$line")
    if jq -e 'has("skip")' <<<"$line" >/dev/null; then
      skips[$(jq -r .skip <<<"$line")]=$(( ${skips[$(jq -r .skip <<<"$line")]:-0} + 1 ))
      if jq -e 'has("naive_body")' <<<"$line" >/dev/null; then
        guarded=$((guarded + 1))
        if out=$(k -n "$ns" patch pod "$name" --subresource resize --type strategic -p "$(jq -c .naive_body <<<"$line")" 2>&1); then
          guard_wrong=$((guard_wrong + 1))
          echo "  skipped as $(jq -r .skip <<<"$line") but the apiserver accepts $name: $(jq -c .naive_body <<<"$line")" >&2
        fi
      fi
      continue
    fi
    planned=$((planned + 1))
    body=$(jq -c .body <<<"$line")
    [ "$(jq -r .envelope_raised <<<"$line")" = true ] && envelope=$((envelope + 1))
    [ "$(jq -r .memory_clamped <<<"$line")" = true ] && clamped=$((clamped + 1))
    if out=$(k -n "$ns" patch pod "$name" --subresource resize --type strategic -p "$body" 2>&1); then
      accepted=$((accepted + 1))
    else
      rejected=$((rejected + 1))
      echo "  rejected $name: $body" >&2
      echo "    $out" >&2
    fi
  done < <(k -n "$ns" get pods -o json | "$DRIVER" plan "$SEED" "$1" "$tmp/version.json" "$tmp/nodes.json" "$2" 2>"$tmp/caps")
  if [ "$1" = 1 ]; then log "$(cat "$tmp/caps")"; fi
}

for r in $(seq 1 "$ROUNDS"); do
  round "$r" false
  [ "$rejected" -eq 0 ] || fail "round $r: the apiserver rejected $rejected body(ies) plan_resize produced"
done
summary="cases=$cases planned=$planned accepted=$accepted envelope_raised=$envelope memory_clamped=$clamped guarded_skips_refused=$((guarded - guard_wrong))/$guarded skips={$(for s in "${!skips[@]}"; do printf '%s:%s ' "$s" "${skips[$s]}"; done)}"
log "$summary"
[ "$cases" -ge 200 ] || fail "only $cases cases (want >= 200): raise PODS or ROUNDS"
[ "$planned" -gt 0 ] || fail "nothing was planned"
[ "$guard_wrong" -eq 0 ] || fail "$guard_wrong skip(s) were needless: the apiserver accepted the unguarded body"

if [ "$allow_decrease" = false ]; then
  # Negative control: the same planner without the clamp. 1.33 validation
  # rejects a NotRequired memory-limit decrease, so rejections must appear
  # there, or this test proves nothing about the clamp. 1.32 (alpha) accepts
  # them at the API; the clamp is kept there for the kubelet.
  [ "$clamped" -gt 0 ] || fail "no memory-limit decrease was clamped: the clamp was never exercised"
  planned_before=$planned
  round $((ROUNDS + 1)) true
  log "negative control (no clamp): $((planned - planned_before)) planned, $rejected rejected"
  if [ "$minor" -ge 33 ]; then
    [ "$rejected" -gt 0 ] || fail "without the clamp nothing was rejected on $K8S_VERSION"
  fi
fi
