#!/usr/bin/env bash
# kubectl attune status --filter and --contexts/--all-contexts on the real
# apiserver, over the status a real attune-manager wrote (the test writes no
# status). Two namespaces: in A an Observe policy with a workload (Ready=True
# Monitoring), one whose targetRef matches nothing (NoWorkloadsFound) and a
# paused one (Paused); in B an Observe policy (Monitoring) and one whose
# bounds are invalid (InvalidConfig); then, with the manager stopped, a
# policy with no status yet (pending). Each --filter word prints exactly the
# policies kubectl's own reading of their Ready and Degraded conditions
# selects. A kubeconfig with contexts a (namespace A), b (namespace B) and
# down (a server that refuses connections): --contexts a,b prints one table
# with a CONTEXT column whose rows are exactly the policies kubectl lists in
# each context; --all-contexts also tries down, names it in an error line,
# still prints a and b, and exits 1; the conflicting flags are usage errors.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/87_cli_lib.bash"
require_cli
require_manager
apply_policy_crd
test_namespace
ns_a=$ns
ns_b="$ns-b"
k create namespace "$ns_b" >/dev/null
at_exit "k delete namespace $ns_b --wait=false >/dev/null 2>&1"
tmp=$(mktemp -d)
at_exit "rm -rf $tmp"

deployment() {  # deployment NS NAME
  k -n "$1" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $2}
spec:
  replicas: 1
  selector: {matchLabels: {app: $2}}
  template:
    metadata: {labels: {app: $2}}
    spec: {containers: [{name: app, image: attune.local/pause:1, resources: {requests: {cpu: 200m, memory: 64Mi}}}]}
YAML
}
policy() {  # policy NS NAME TARGET [EXTRA-SPEC-LINES]
  k -n "$1" apply -f - >/dev/null <<YAML
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: $2}
spec:
  targetRef: {kind: Deployment, name: $3}
  cpu: {}
  memory: {}
  metricsSource: {prometheus: {address: "http://prometheus.monitoring:9090"}}
  updateStrategy: {type: Observe}
${4:-}
YAML
}
# Each policy its own workload, so that none loses one to another (PolicyConflict).
for d in web held; do deployment "$ns_a" "$d"; done
for d in api bad; do deployment "$ns_b" "$d"; done
policy "$ns_a" web web
policy "$ns_a" nothing absent
policy "$ns_a" held held "  paused: true"
policy "$ns_b" api api
policy "$ns_b" bad bad "  containerPolicies: [{containerName: app, cpu: {minAllowed: \"8\"}}]"

# "NS NAME READY-STATUS READY-REASON DEGRADED-STATUS" per policy, as kubectl reads them.
kubectl_conditions() {
  k get attunepolicies -A -o json | jq -r --arg a "$ns_a" --arg b "$ns_b" '
    .items[] | select(.metadata.namespace == $a or .metadata.namespace == $b)
    | ([.status.conditions[]? | select(.type == "Ready")][0] // {}) as $r
    | ([.status.conditions[]? | select(.type == "Degraded")][0] // {}) as $d
    | "\(.metadata.namespace) \(.metadata.name) \($r.status // "-") \($r.reason // "-") \($d.status // "-")"' | sort
}
ready_reasons() { kubectl_conditions | awk '{print $2 "=" $4}' | sort | tr '\n' ' '; }

start_leading_manager
want="api=Monitoring bad=InvalidConfig held=Paused nothing=NoWorkloadsFound web=Monitoring "
wait_eq 60 "$want" ready_reasons || fail "the manager did not write the expected Ready reasons: $(ready_reasons)"
stop_manager
# No manager runs now: this policy keeps no status, so no Ready condition.
policy "$ns_a" late web
conditions=$(kubectl_conditions)
log "kubectl reads: $(tr '\n' ';' <<<"$conditions")"

# The policies kubectl's conditions select for a --filter word, as "ns/name" lines.
kubectl_selects() {
  case $1 in
    ready) awk '$3 == "True"' ;;
    degraded) awk '$5 == "True"' ;;
    pending) awk '$3 == "-"' ;;
    collecting) awk '$4 == "InsufficientData"' ;;
    noworkloads) awk '$4 == "NoWorkloadsFound"' ;;
    *) awk -v w="$(tr '[:upper:]' '[:lower:]' <<<"$1")" 'index(tolower($4), w) > 0' ;;
  esac <<<"$conditions" | awk '{print $1 "/" $2}' | sort
}
cli_selects() { jq -r '.items[] | "\(.namespace)/\(.name)"' <<<"$1" | grep -E "^($ns_a|$ns_b)/" | sort || true; }

# 1. --filter, in JSON over both namespaces (-A), word by word.
for word in ready noworkloads pending paused invalid collecting degraded MONITOR; do
  cli_rc status -A --filter "$word" -o json
  [ "$cli_status" = 0 ] || fail "status --filter $word exited $cli_status: $cli_err"
  expect_eq "status --filter $word" "$(cli_selects "$cli_out" | tr '\n' ' ')" "$(kubectl_selects "$word" | tr '\n' ' ')"
done
[ -n "$(kubectl_selects ready)" ] && [ -n "$(kubectl_selects pending)" ] || fail "the fixture lost its ready or pending policy"
# The table: a header and one row, the policy whose targetRef matches nothing.
cli_rc status -n "$ns_a" --filter noworkloads
[ "$cli_status" = 0 ] || fail "status --filter noworkloads (table) exited $cli_status: $cli_err"
expect_eq "table rows for --filter noworkloads" "$(tail -n +2 <<<"$cli_out" | awk '{print $1}' | tr '\n' ' ')" "nothing "
# Nothing matches: kubectl's wording on stderr, exit 0.
cli_rc status -n "$ns_b" --filter degraded
expect_eq "status --filter degraded (nothing) exit" "$cli_status" 0
expect_eq "status --filter degraded (nothing) stdout" "$cli_out" ""
grep -q "No AttunePolicies found in $ns_b namespace" <<<"$cli_err" || fail "no 'No AttunePolicies found' message: $cli_err"
log "--filter selects what kubectl's conditions select, for 8 words"

# 2. --contexts: one kubeconfig, three contexts.
k config view --raw --minify -o json | jq --arg a "$ns_a" --arg b "$ns_b" '
  {apiVersion: "v1", kind: "Config", "current-context": "a",
   clusters: [{name: "local", cluster: .clusters[0].cluster},
              {name: "nowhere", cluster: (.clusters[0].cluster + {server: "https://127.0.0.1:1"})}],
   users: [{name: "u", user: .users[0].user}],
   contexts: [{name: "a", context: {cluster: "local", user: "u", namespace: $a}},
              {name: "b", context: {cluster: "local", user: "u", namespace: $b}},
              {name: "down", context: {cluster: "nowhere", user: "u"}}]}' >"$tmp/kubeconfig"
# HARNESS: the kubeconfig itself reads each namespace with kubectl.
kubectl_context_rows() {  # "context namespace name" per policy kubectl lists in each context
  local c
  for c in "$@"; do
    KUBECONFIG=$tmp/kubeconfig "$KUBECTL" --context "$c" get attunepolicies -o json \
      | jq -r --arg c "$c" '.items[] | "\($c) \(.metadata.namespace) \(.metadata.name)"'
  done | sort
}
want_rows=$(kubectl_context_rows a b)
[ "$(wc -l <<<"$want_rows")" = 6 ] || fail "HARNESS: kubectl lists $(wc -l <<<"$want_rows") policies in contexts a and b, want 6"

KUBECONFIG=$tmp/kubeconfig cli_rc status --contexts a,b -o json
[ "$cli_status" = 0 ] || fail "status --contexts a,b exited $cli_status: $cli_err"
expect_eq "status --contexts a,b -o json rows" \
  "$(jq -r '.items[] | "\(.context) \(.namespace) \(.name)"' <<<"$cli_out" | sort)" "$want_rows"
# Each row's phase is its Ready reason in kubectl's reading ("-": none yet,
# shown as Pending or Unknown).
while read -r c n name phase; do
  reason=$(awk -v n="$n" -v p="$name" '$1 == n && $2 == p {print $4}' <<<"$conditions")
  case $reason in -) [ "$phase" = Pending ] || [ "$phase" = Unknown ] ;; *) [ "$phase" = "$reason" ] ;; esac \
    || fail "context $c: $n/$name shows phase $phase, kubectl's Ready reason is $reason"
done < <(jq -r '.items[] | "\(.context) \(.namespace) \(.name) \(.phase)"' <<<"$cli_out")

KUBECONFIG=$tmp/kubeconfig cli_rc status --contexts b,a
[ "$cli_status" = 0 ] || fail "status --contexts b,a (table) exited $cli_status: $cli_err"
printf "%s\n" "$cli_out" | sed "s/^/    /" >&2
expect_eq "the table's first header" "$(head -1 <<<"$cli_out" | awk '{print $1, $2}')" "CONTEXT NAME"
expect_eq "the table's rows, in the order of --contexts" "$(tail -n +2 <<<"$cli_out" | awk '{print $1}' | uniq | tr '\n' ' ')" "b a "
expect_eq "the table's rows" "$(tail -n +2 <<<"$cli_out" | awk '{print $1, $2}' | sort)" \
  "$(awk '{print $1, $3}' <<<"$want_rows" | sort)"
# --filter applies in every context.
KUBECONFIG=$tmp/kubeconfig cli_rc status --contexts a,b --filter ready -o json
expect_eq "--contexts a,b --filter ready" "$(jq -r '.items[] | "\(.context)/\(.name)"' <<<"$cli_out" | sort | tr '\n' ' ')" \
  "a/web b/api "
log "--contexts a,b: the rows kubectl lists in each context, with a CONTEXT column"

# 3. --all-contexts: down refuses connections; a and b are still printed.
KUBECONFIG=$tmp/kubeconfig cli_rc status --all-contexts -o json --request-timeout 20s
expect_eq "status --all-contexts exit (one context down)" "$cli_status" 1
grep -q '^error: context "down": ' <<<"$cli_err" || fail "no error line naming context down: $cli_err"
expect_eq "status --all-contexts rows" "$(jq -r '.items[] | "\(.context) \(.namespace) \(.name)"' <<<"$cli_out" | sort)" "$want_rows"
log "--all-contexts: down named on stderr ($(grep -m1 'context "down"' <<<"$cli_err")), a and b printed, exit 1"

# 4. Conflicting flags are usage errors (exit 2), and nothing is read.
for args in "--contexts a --context b" "--contexts a --all-contexts" "--contexts a -w" "--contexts ,"; do
  # shellcheck disable=SC2086
  KUBECONFIG=$tmp/kubeconfig cli_rc status $args
  expect_eq "status $args exit" "$cli_status" 2
  expect_eq "status $args stdout" "$cli_out" ""
done
# recommendations and history take --contexts too.
KUBECONFIG=$tmp/kubeconfig cli_rc history --contexts a,b -o json
[ "$cli_status" = 0 ] || fail "history --contexts a,b exited $cli_status: $cli_err"
expect_eq "history --contexts a,b (Observe: nothing resized)" "$(jq '.items | length' <<<"$cli_out")" 0
log "conflicting flags exit 2; history reads several contexts too"
