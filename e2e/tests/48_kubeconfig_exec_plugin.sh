#!/usr/bin/env bash
# Exec credential plugins (kubeconfig users[].user.exec), as client-go runs
# them, against the real apiserver, with kubectl as the judge:
#  - a small plugin mints a short-lived ServiceAccount token bound to a Secret
#    (`kubectl create token --bound-object-kind Secret`) and prints a v1
#    ExecCredential with an expirationTimestamp, counting its runs in a file.
#    The ServiceAccount has the manager's own ClusterRole (deploy/kustomize/base,
#    rendered with kubectl kustomize);
#  - kubectl attune version and status work through it (one plugin run per
#    command), and the plugin sees KUBERNETES_EXEC_INFO (provideClusterInfo:
#    the server, CA and the cluster's exec extension) and the configured env;
#  - attune-manager started with that kubeconfig becomes ready and writes a
#    policy's status; revoking its token (the bound Secret deleted, the next
#    token minted against a fresh Secret) makes it re-run the plugin after the
#    401 and keep writing the status;
#  - a plugin that prints garbage, one that exits non-zero and a missing one
#    (with its installHint) are clear errors within seconds, for the CLI and
#    for the manager.
. "$(dirname "$0")/../lib.sh"
# Exec plugins serve a manager run outside a cluster: the host binary, even in
# the image lane (in-cluster the manager has its projected token, and its image
# has no shell to run a plugin script with).
unset E2E_MANAGER_IMAGE
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/87_cli_lib.bash"
require_manager
require_cli
apply_policy_crd
test_namespace

work=$(mktemp -d /tmp/attune-e2e-48.XXXXXX)
at_exit "rm -rf $work"
admin_kubeconfig=$(readlink -f "${KUBECONFIG:-$CLUSTER_DIR/kubeconfig}")
sa=exec-plugin-user

# The identity: a ServiceAccount with the manager's real ClusterRole.
k -n "$ns" create serviceaccount "$sa" >/dev/null
role=$(k kustomize "$REPO_ROOT/deploy/kustomize/base" | k create --dry-run=client -o json -f - \
  | jq -c 'if .kind == "List" then .items[] else . end | select(.kind == "ClusterRole" and .metadata.name == "attune-manager")')
[ -n "$role" ] || fail "deploy/kustomize/base renders no ClusterRole"
role_name=$(jq -r .metadata.name <<<"$role")
k get clusterrole "$role_name" >/dev/null 2>&1 || at_exit "k delete clusterrole $role_name --wait=false >/dev/null 2>&1"
k apply -f - >/dev/null <<<"$role" || fail "the manager's ClusterRole was refused"
k create clusterrolebinding "e2e-48-$ns" --clusterrole="$role_name" --serviceaccount="$ns:$sa" >/dev/null
at_exit "k delete clusterrolebinding e2e-48-$ns --wait=false >/dev/null 2>&1"
k -n "$ns" create secret generic bind-1 >/dev/null
echo bind-1 >"$work/secret"

# The plugin: a relative command in the kubeconfig, resolved against its directory.
cat >"$work/mint-token.sh" <<'SH'
#!/bin/sh
# e2e 48's exec credential plugin: one short-lived token bound to the Secret
# named in ./secret, as a v1 ExecCredential.
dir=$(dirname "$0")
n=$(( $(cat "$dir/count" 2>/dev/null || echo 0) + 1 ))
echo "$n" >"$dir/count"
printf '%s\n' "$KUBERNETES_EXEC_INFO" >"$dir/exec-info.json"
token=$("$E2E_KUBECTL" --kubeconfig "$E2E_ADMIN_KUBECONFIG" -n "$E2E_SA_NAMESPACE" create token "$E2E_SA" \
  --duration 10m --bound-object-kind Secret --bound-object-name "$(cat "$dir/secret")") || exit 3
echo "$token" >"$dir/token-$n"
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s","expirationTimestamp":"%s"}}\n' \
  "$token" "$(date -u -d '+10 minutes' +%Y-%m-%dT%H:%M:%SZ)"
SH
cat >"$work/garbage.sh" <<'SH'
#!/bin/sh
echo "Welcome! Your session: abc123"
SH
cat >"$work/broken.sh" <<'SH'
#!/bin/sh
echo "error: the SSO session has expired; run the login first" >&2
exit 4
SH
chmod +x "$work"/*.sh

server=$(k config view --raw --minify --flatten -o jsonpath='{.clusters[0].cluster.server}')
ca=$(k config view --raw --minify --flatten -o jsonpath='{.clusters[0].cluster.certificate-authority-data}')
# A file, not a process substitution: kubectl 1.32 does not trust a CA given
# as a pipe (x509: certificate signed by unknown authority); later ones do.
base64 -d <<<"$ca" >"$work/ca.crt"
# plugin_kubeconfig FILE COMMAND [INSTALL_HINT]
plugin_kubeconfig() {
  cat >"$1" <<YAML
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: "$server"
    certificate-authority-data: "$ca"
    extensions:
    - name: client.authentication.k8s.io/exec
      extension: {audience: e2e-48}
users:
- name: plugin
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: $2
      interactiveMode: Never
      provideClusterInfo: true
      installHint: "${3:-}"
      env:
      - {name: E2E_KUBECTL, value: "$KUBECTL"}
      - {name: E2E_ADMIN_KUBECONFIG, value: "$admin_kubeconfig"}
      - {name: E2E_SA_NAMESPACE, value: "$ns"}
      - {name: E2E_SA, value: "$sa"}
contexts: [{name: plugin, context: {cluster: e2e, user: plugin, namespace: $ns}}]
current-context: plugin
YAML
}
kc=$work/kubeconfig
plugin_kubeconfig "$kc" ./mint-token.sh
runs() { cat "$work/count" 2>/dev/null || echo 0; }

# --- kubectl attune through the plugin -------------------------------------
cli_rc --kubeconfig "$kc" version -o json
[ "$cli_status" = 0 ] || fail "version through the plugin exited $cli_status: $cli_err"
expect_eq "Kubernetes version through the plugin" "$(jq -r .kubernetesVersion <<<"$cli_out")" \
  "$(k version -o json | jq -r .serverVersion.gitVersion)"
expect_eq "plugin runs after one command" "$(runs)" 1
info=$work/exec-info.json
expect_eq "KUBERNETES_EXEC_INFO kind" "$(jq -r '"\(.apiVersion) \(.kind) \(.spec.interactive)"' "$info")" \
  "client.authentication.k8s.io/v1 ExecCredential false"
expect_eq "spec.cluster.server" "$(jq -r .spec.cluster.server "$info")" "$server"
expect_eq "spec.cluster.certificate-authority-data" "$(jq -r '.spec.cluster."certificate-authority-data"' "$info")" "$ca"
expect_eq "spec.cluster.config" "$(jq -c .spec.cluster.config "$info")" '{"audience":"e2e-48"}'
# The token the plugin minted is the ServiceAccount's (kubectl says whose).
expect_eq "the plugin's token" "$(k --token "$(cat "$work/token-1")" --kubeconfig /dev/null --server "$server" \
  --certificate-authority "$work/ca.crt" auth whoami -o jsonpath='{.status.userInfo.username}')" \
  "system:serviceaccount:$ns:$sa"

apply_web_policy
cli_rc --kubeconfig "$kc" status -o json
[ "$cli_status" = 0 ] || fail "status through the plugin exited $cli_status: $cli_err"
expect_eq "status lists the policy kubectl sees" "$(jq -c '[.items[].name]' <<<"$cli_out")" \
  "$(k -n "$ns" get attunepolicies -o json | jq -c '[.items[].metadata.name]')"
expect_eq "plugin runs after two commands (one each)" "$(runs)" 2

# --- the manager through the plugin, across a revoked token ----------------
idle_deployment first
KUBECONFIG=$kc start_manager --workers 2
wait_eq 60 '["first"]' idle_names || fail "the manager did not write idleWorkloads: $(idle_names)"
before=$(runs)
log "manager ready through the plugin; $before plugin runs so far"
grep -q 'exec plugin returned a credential command=.*mint-token.sh kind=token expires=' "$MGR_LOG" \
  || fail "the manager did not log the plugin's credential"

# Revoke: the next token is bound to a fresh Secret; the current one dies with its Secret.
k -n "$ns" create secret generic bind-2 >/dev/null
echo bind-2 >"$work/secret"
revoked=$work/token-$before
k -n "$ns" delete secret bind-1 >/dev/null
old_token_refused() {
  ! k --token "$(cat "$revoked")" --kubeconfig /dev/null --server "$server" \
    --certificate-authority "$work/ca.crt" auth whoami >/dev/null 2>&1
}
wait_until 60 old_token_refused || fail "the apiserver still accepts the token bound to the deleted Secret"
log "the manager's token is revoked (kubectl auth whoami with it is refused)"

idle_deployment second
wait_eq 90 '["first","second"]' idle_names || fail "after the revocation the manager stopped writing: $(idle_names) (log $MGR_LOG)"
after=$(runs)
[ "$after" -gt "$before" ] || fail "the plugin did not run again after the 401 ($before runs, then $after)"
grep -q 'kube request unauthorized .*retry_with_fresh_credential=true' "$MGR_LOG" \
  || fail "the manager logged no 401 retried with a fresh credential"
unauthorized=$(metric_sum attune_kube_requests_total 'code="401"')
[ "${unauthorized%.*}" -gt 0 ] || fail "the manager counted no 401 (attune_kube_requests_total{code=\"401\"})"
expect_eq "the fresh token's identity" "$(k --token "$(cat "$work/token-$after")" --kubeconfig /dev/null --server "$server" \
  --certificate-authority "$work/ca.crt" auth whoami -o jsonpath='{.status.userInfo.username}')" \
  "system:serviceaccount:$ns:$sa"
log "after the revocation: $after plugin runs, $unauthorized requests answered 401, status still written"
idle_deployment third
wait_eq 60 '["first","second","third"]' idle_names || fail "the manager stopped writing later: $(idle_names)"
kill -0 "$MGR_PID" 2>/dev/null || fail "attune-manager died"
stop_manager || fail "the manager did not stop on SIGTERM"

# --- bad plugins: clear errors, fast ---------------------------------------
# expect_cli_error KUBECONFIG NEEDLE...: kubectl attune version exits 1
# within 10 s with one error line holding every NEEDLE.
expect_cli_error() {
  local file=$1 t0 took n; shift
  t0=$(date +%s)
  cli_rc --kubeconfig "$file" version
  took=$(( $(date +%s) - t0 ))
  [ "$cli_status" = 1 ] || fail "$(basename "$file"): exit $cli_status, want 1 ($cli_err)"
  [ "$took" -le 10 ] || fail "$(basename "$file"): the error took ${took}s"
  for n in "$@"; do [[ "$cli_err" == *"$n"* ]] || fail "$(basename "$file"): error lacks '$n': $cli_err"; done
  log "$(basename "$file") (${took}s): $(grep -m1 'error' <<<"$cli_err")"
}
plugin_kubeconfig "$work/garbage.kubeconfig" ./garbage.sh "not shown for bad output"
expect_cli_error "$work/garbage.kubeconfig" "exec plugin output: not JSON" "Welcome! Your session"
[[ "$cli_err" != *"not shown for bad output"* ]] || fail "the install hint was shown for bad output"
plugin_kubeconfig "$work/broken.kubeconfig" ./broken.sh
expect_cli_error "$work/broken.kubeconfig" "broken.sh failed with exit code 4" "the SSO session has expired"
plugin_kubeconfig "$work/missing.kubeconfig" attune-e2e-no-such-plugin "Install attune-e2e-no-such-plugin from your identity provider"
expect_cli_error "$work/missing.kubeconfig" "executable attune-e2e-no-such-plugin not found in \$PATH" \
  "Install attune-e2e-no-such-plugin from your identity provider"

# The manager with a missing plugin: the same error in its log, never ready, still up to retry.
MGR_LOG=$ATTUNE_RUN/manager-logs/48-missing-plugin-$RANDOM.log
mkdir -p "$(dirname "$MGR_LOG")"
"$ATTUNE_MANAGER" --kubeconfig "$work/missing.kubeconfig" --metrics-bind-address 127.0.0.1:0 --metrics-secure=false --log-format text \
  >"$MGR_LOG" 2>&1 &
MGR_PID=$!
at_exit stop_manager
wait_until 15 grep -q 'executable attune-e2e-no-such-plugin not found' "$MGR_LOG" \
  || { tail -20 "$MGR_LOG" >&2; fail "the manager did not report the missing plugin within 15 s"; }
grep -q 'Install attune-e2e-no-such-plugin from your identity provider' "$MGR_LOG" || fail "the manager's error lacks the install hint"
port=$(sed -n 's/.*serving \/metrics .*address=127\.0\.0\.1:\([0-9]*\).*/\1/p' "$MGR_LOG" | head -1)
if [ -n "$port" ] && curl -fsS --max-time 2 "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then
  fail "the manager is ready without credentials"
fi
stop_manager || fail "the manager without credentials did not stop on SIGTERM"
log "missing plugin: the manager reports it with the hint and stays unready"
