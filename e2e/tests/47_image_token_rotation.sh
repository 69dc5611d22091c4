#!/usr/bin/env bash
# The projected token rotates (image lane only): the manager runs in its image
# with a ServiceAccount token mounted where a pod gets it. While it runs the
# token file is rewritten with a fresh token (as the kubelet does), then the
# old token is revoked by deleting the Secret it is bound to. kubectl shows the
# old token refused, and the manager keeps writing the policy's status.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
[ -n "${E2E_MANAGER_IMAGE:-}" ] || skip "needs the image lane (E2E_MANAGER_IMAGE; make test sets it)"
require_manager
apply_policy_crd
test_namespace
"$E2E_ROOT/image-lane/lane-rbac.sh" || fail "the rendered RBAC was refused"

suffix=$RANDOM
for s in a b; do
  k -n attune-system create secret generic "token-bound-$s-$suffix" >/dev/null
  at_exit "k -n attune-system delete secret token-bound-$s-$suffix --ignore-not-found >/dev/null 2>&1"
done
mint() {  # mint SECRET: a token of attune-manager bound to that Secret
  k -n attune-system create token attune-manager --duration 10m --bound-object-kind Secret --bound-object-name "$1"
}
token_a=$(mint "token-bound-a-$suffix") || fail "TokenRequest refused"
token_b=$(mint "token-bound-b-$suffix") || fail "TokenRequest refused"

# A kubeconfig that carries token A: the lane mounts it as the pod's token.
kc="$ATTUNE_RUN/token-rotation-$suffix.kubeconfig"
k config view --minify --flatten -o json | jq --arg t "$token_a" \
  '.users[0].user = {token: $t}' >"$kc"
at_exit "rm -f $kc"
as_token() { KUBECONFIG=$kc "$KUBECTL" "$@"; }
as_token -n "$ns" get attunepolicies >/dev/null 2>&1 || fail "token A does not work before the rotation"

tokdir=$(mktemp -d "$ATTUNE_RUN/token-dir-XXXX")
at_exit "rm -rf $tokdir"
ATTUNE_LANE_TOKEN_DIR=$tokdir KUBECONFIG=$kc start_manager
apply_web_policy
idle_deployment first
wait_eq 30 '["first"]' idle_names || fail "the manager did not write the status with token A: $(idle_names)"

# Rotate: the file now holds token B (renamed into place, as the kubelet swaps
# its projected files), then token A is revoked.
printf '%s' "$token_b" >"$tokdir/.token.new"; chmod 0644 "$tokdir/.token.new"; mv "$tokdir/.token.new" "$tokdir/token"
k -n attune-system delete secret "token-bound-a-$suffix" --wait >/dev/null
wait_until 30 bash -c "! KUBECONFIG=$kc $KUBECTL -n $ns get attunepolicies >/dev/null 2>&1" \
  || fail "token A still works after its Secret was deleted"
log "token A refused: $(as_token -n "$ns" get attunepolicies 2>&1 | head -1)"

# The manager keeps working: a new idle Deployment reaches the status within
# 20 s, sooner than the token file's periodic re-read (60 s): the 401 made it
# read the new token.
idle_deployment second
wait_eq 20 '["first","second"]' idle_names || { tail -20 "$MGR_LOG" >&2; fail "the manager stopped writing after the rotation: $(idle_names)"; }
manager_ready || fail "the manager is not ready after the rotation"
log "after the rotation: $(idle_names); $(grep -c 'sending again with the token file' "$MGR_LOG") request(s) re-sent after a 401"
