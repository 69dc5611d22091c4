#!/usr/bin/env bash
# kubectl attune doctor with least privilege and broken inputs, on the real
# apiserver: a ServiceAccount bound to the shipped doctor ClusterRole and
# Role (deploy/kustomize/rbac/kubectl-attune-doctor.yaml) runs doctor with
# every row readable and exit 0; a user who cannot list nodes gets WARN
# ("could not determine") for cgroup v2 and pod-level resize, a WARN RBAC
# row naming the denied read, and still exit 0 (never FAIL on a heuristic).
# Broken inputs give one clear "error: ..." line on stderr, exit 1 and no
# stack trace: a bad kubeconfig, an unreachable apiserver, a missing CRD
# (then the CRDs row FAILs); bad usage exits 2.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/87_cli_lib.bash"
require_cli
require_manager
apply_policy_crd
test_namespace
start_leading_manager
tmp=$(mktemp -d)
at_exit "rm -rf $tmp"

# The shipped roles; the Role's namespace is the manager's, here $ns.
sed "s/namespace: attune-system/namespace: $ns/" "$REPO_ROOT/deploy/kustomize/rbac/kubectl-attune-doctor.yaml" \
  | sed "s/name: kubectl-attune-doctor$/name: kubectl-attune-doctor-$ns/" | k apply -f - >/dev/null
at_exit "k delete clusterrole kubectl-attune-doctor-$ns --wait=false >/dev/null 2>&1"
at_exit "k delete clusterrolebinding doctor-$ns nonodes-$ns --wait=false >/dev/null 2>&1"
at_exit "k delete clusterrole kubectl-attune-doctor-nonodes-$ns --wait=false >/dev/null 2>&1"
k -n "$ns" create serviceaccount doctor >/dev/null
k create clusterrolebinding "doctor-$ns" --clusterrole="kubectl-attune-doctor-$ns" --serviceaccount="$ns:doctor" >/dev/null
k -n "$ns" create rolebinding doctor --role="kubectl-attune-doctor-$ns" --serviceaccount="$ns:doctor" >/dev/null

# The same ClusterRole without the nodes rule, for a user who cannot list nodes.
k get clusterrole "kubectl-attune-doctor-$ns" -o json \
  | jq --arg n "kubectl-attune-doctor-nonodes-$ns" '{apiVersion, kind, metadata: {name: $n}, rules: [.rules[] | select(.resources != ["nodes"])]}' \
  | k apply -f - >/dev/null
k -n "$ns" create serviceaccount nonodes >/dev/null
k create clusterrolebinding "nonodes-$ns" --clusterrole="kubectl-attune-doctor-nonodes-$ns" --serviceaccount="$ns:nonodes" >/dev/null
k -n "$ns" create rolebinding nonodes --role="kubectl-attune-doctor-$ns" --serviceaccount="$ns:nonodes" >/dev/null

token_kubeconfig doctor "$tmp/doctor.kubeconfig"
token_kubeconfig nonodes "$tmp/nonodes.kubeconfig"
rbac_ready() { k auth can-i list nodes --as="system:serviceaccount:$ns:doctor" >/dev/null; }
wait_until 30 rbac_ready || fail "the doctor ServiceAccount cannot list nodes"

# Under the doctor ClusterRole: everything readable.
cli_rc doctor --kubeconfig "$tmp/doctor.kubeconfig" --manager-namespace "$ns" -o json
echo "$cli_out" >"$tmp/doctor.json"
[ "$cli_status" = 0 ] || fail "doctor under its ClusterRole exited $cli_status: $cli_err $(jq -c '[.rows[] | select(.status != "ok")]' "$tmp/doctor.json" 2>/dev/null)"
expect_eq "RBAC row under the doctor role" "$(row_status RBAC "$tmp/doctor.json")" ok
expect_eq "CRDs under the doctor role" "$(row_status CRDs "$tmp/doctor.json")" ok
expect_eq "manager under the doctor role" "$(row_status manager "$tmp/doctor.json")" ok
case "$(row 'cgroup v2' "$tmp/doctor.json")" in "WARN|could not determine ("*|"WARN|suspect"*) ;; *) fail "cgroup row under the doctor role: $(row 'cgroup v2' "$tmp/doctor.json")" ;; esac
log "doctor under its ClusterRole: exit 0, $(jq -r '[.rows[] | .status] | group_by(.) | map("\(.[0])=\(length)") | join(" ")' "$tmp/doctor.json")"

# A user who cannot list nodes: WARN, not FAIL.
cli_rc doctor --kubeconfig "$tmp/nonodes.kubeconfig" --manager-namespace "$ns" -o json
echo "$cli_out" >"$tmp/nonodes.json"
[ "$cli_status" = 0 ] || fail "doctor without nodes list exited $cli_status: $cli_err"
case "$(row 'cgroup v2' "$tmp/nonodes.json")" in "WARN|could not determine: cannot list nodes (nodes list is forbidden for you"*) ;;
  *) fail "cgroup row without nodes list: $(row 'cgroup v2' "$tmp/nonodes.json")" ;; esac
case "$(row RBAC "$tmp/nonodes.json")" in "WARN|denied: list nodes"*) ;; *) fail "RBAC row: $(row RBAC "$tmp/nonodes.json")" ;; esac
if [ "$K8S_MINOR" != 1.32 ]; then
  case "$(row 'pod-level resize' "$tmp/nonodes.json")" in "WARN|"*"nodes could not be listed (forbidden)"*"(fallback)") ;;
    *) fail "pod-level resize without nodes list: $(row 'pod-level resize' "$tmp/nonodes.json")" ;; esac
fi
jq -e '[.rows[] | select(.status == "FAIL")] | length == 0' "$tmp/nonodes.json" >/dev/null \
  || fail "a FAIL without nodes list: $(jq -c '[.rows[] | select(.status == "FAIL")]' "$tmp/nonodes.json")"
log "doctor without nodes list: $(row 'cgroup v2' "$tmp/nonodes.json" | cut -c1-90)..."

no_trace() {  # the stderr of a failed run: one clear error, no crash
  grep -q '^error: ' <<<"$cli_err" || fail "$1: no 'error:' line on stderr: $cli_err"
  grep -qiE 'terminate called|what\(\)|Aborted|core dumped|Segmentation|stack' <<<"$cli_err" && fail "$1: a crash: $cli_err"
  return 0
}

# A bad kubeconfig.
printf 'apiVersion: v1\nclusters: [ this is not yaml\n' >"$tmp/garbage"
cli_rc doctor --kubeconfig "$tmp/garbage"
expect_eq "doctor with a bad kubeconfig" "$cli_status" 1
no_trace "bad kubeconfig"
log "bad kubeconfig: $cli_err"
cli_rc status --kubeconfig "$tmp/nope-$RANDOM"
expect_eq "status with a missing kubeconfig" "$cli_status" 1
no_trace "missing kubeconfig"

# An unreachable apiserver (nothing listens on port 1).
sed -E 's#server: "[^"]*"#server: "https://127.0.0.1:1"#' "$tmp/doctor.kubeconfig" >"$tmp/unreachable"
start=$(date +%s)
cli_rc doctor --kubeconfig "$tmp/unreachable" --request-timeout 20s
expect_eq "doctor against an unreachable apiserver" "$cli_status" 1
no_trace "unreachable apiserver"
grep -q "127.0.0.1:1" <<<"$cli_err" || fail "the error does not name the apiserver: $cli_err"
log "unreachable apiserver: exit 1 after $(( $(date +%s) - start )) s: $cli_err"
cli_rc history --kubeconfig "$tmp/unreachable" --request-timeout 20s
expect_eq "history against an unreachable apiserver" "$cli_status" 1
no_trace "unreachable apiserver (history)"

# Bad usage: exit 2.
cli_rc doctor --no-such-flag
expect_eq "an unknown flag" "$cli_status" 2
cli_rc explain pod/x
expect_eq "explain of a pod" "$cli_status" 2

# A missing CRD: the CRDs row FAILs (required), doctor exits 1; status says so.
k delete crd attunepolicies.attune.io --wait=true >/dev/null
at_exit "k apply -f $REPO_ROOT/deploy/kustomize/base/crd/ >/dev/null 2>&1"
cli_rc doctor --manager-namespace "$ns" -o json
expect_eq "doctor without the AttunePolicy CRD" "$cli_status" 1
echo "$cli_out" >"$tmp/nocrd.json"
case "$(row CRDs "$tmp/nocrd.json")" in "FAIL|missing: attunepolicies.attune.io"*) ;; *) fail "CRDs row: $(row CRDs "$tmp/nocrd.json")" ;; esac
jq -e '.failed == true' "$tmp/nocrd.json" >/dev/null || fail "doctor JSON does not say failed"
cli_rc status
expect_eq "status without the CRD" "$cli_status" 1
no_trace "missing CRD (status)"
log "missing CRD: $cli_err"
apply_policy_crd
