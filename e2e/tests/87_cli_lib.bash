# Helpers for the kubectl-attune e2e tests (87-89). Sourced after lib.sh and
# 70_manager_lib.bash; not a test itself (the runner only runs *.sh).
#
# The manager runs as a process of the test (70_manager_lib.bash), with its
# leader Lease in the test namespace; doctor is pointed there with
# --manager-namespace. HARNESS, not Attune: harness_manager_deployment
# creates a Deployment named attune-manager whose pod kubesim runs (no
# container runs), so doctor's manager row has a Deployment to read the
# version from, as on a real cluster.
cli() { "$ATTUNE_CLI" "$@"; }

# cli_rc CMD...: the plugin's exit code; stdout in $cli_out, stderr in $cli_err.
cli_rc() {
  local o e
  o=$(mktemp) e=$(mktemp)
  set +e; "$ATTUNE_CLI" "$@" >"$o" 2>"$e"; cli_status=$?; set -e
  cli_out=$(cat "$o") cli_err=$(cat "$e")
  rm -f "$o" "$e"
  return 0
}

# row_re VALUE...: an ERE for one table row of these literal values (columns three or more spaces apart).
row_re() {
  local v out="" sep=""
  for v in "$@"; do out+="$sep$(sed 's/[][\.*^$+?(){}|]/\\&/g' <<<"$v")"; sep=' {3,}'; done
  printf '^%s$' "$out"
}
# shows VALUE...: $cli_out has a table row of exactly these values.
shows() { grep -qE -- "$(row_re "$@")" <<<"$cli_out" || fail "no row '$*' in: $cli_out"; }

# start_leading_manager [START-FN]: attune-manager (started by START-FN,
# default start_manager) with its Lease attune-manager in $ns, leading; its
# log holds the `capabilities ...` line doctor is compared with.
start_leading_manager() {
  "${1:-start_manager}" --leader-elect --leader-election-namespace "$ns" --leader-election-id attune-manager
  wait_until 30 grep -q "capabilities source=" "$MGR_LOG" || fail "the manager logged no capabilities line"
  wait_until 30 lease_held || fail "the manager never took its Lease"
}
lease_held() { [ -n "$(k -n "$ns" get lease attune-manager -o jsonpath='{.spec.holderIdentity}' 2>/dev/null)" ]; }

# manager_capabilities: the manager's capabilities line as sorted key=value
# lines (the probed fields; the *_error fields are not capabilities).
manager_capabilities() {
  grep -m1 "capabilities source=" "$MGR_LOG" | tr ' ' '\n' | grep -E '^[a-z_]+=' \
    | grep -vE '^(source|decision_error|version_error|resources_error|openapi_error|nodes_error)=' | sort
}
# doctor_capabilities JSON-FILE: the same keys from doctor -o json.
doctor_capabilities() {
  jq -r '.capabilities | to_entries[] | select(.key != "source") | "\(.key)=\(.value)"' "$1" | sort
}

# harness_manager_deployment VERSION: see the header.
harness_manager_deployment() {
  k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: attune-manager, labels: {app.kubernetes.io/name: attune}}
spec:
  replicas: 1
  selector: {matchLabels: {app: attune-manager-harness}}
  template:
    metadata: {labels: {app: attune-manager-harness}}
    spec: {containers: [{name: manager, image: "attune/attune-manager:$1", resources: {requests: {cpu: 10m, memory: 16Mi}}}]}
YAML
  wait_eq 60 1 k -n "$ns" get deployment attune-manager -o jsonpath='{.status.readyReplicas}' \
    || fail "the harness attune-manager Deployment never became ready"
}

# row NAME FILE: doctor's JSON row of that name ("" when absent), as "STATUS|DETAIL".
row() { jq -r --arg n "$1" '[.rows[] | select(.name == $n)] | if length == 0 then "" else (.[0] | "\(.status)|\(.detail)") end' "$2"; }
row_status() { row "$1" "$2" | cut -d'|' -f1; }

# token_kubeconfig SA FILE: a kubeconfig for ServiceAccount SA of $ns (a bound token).
token_kubeconfig() {
  local token server ca
  token=$(k -n "$ns" create token "$1" --duration=1h)
  server=$(k config view --raw --minify --flatten -o jsonpath='{.clusters[0].cluster.server}')
  ca=$(k config view --raw --minify --flatten -o jsonpath='{.clusters[0].cluster.certificate-authority-data}')
  cat >"$2" <<YAML
apiVersion: v1
kind: Config
clusters: [{name: e2e, cluster: {server: "$server", certificate-authority-data: "$ca"}}]
users: [{name: $1, user: {token: "$token"}}]
contexts: [{name: $1, context: {cluster: e2e, user: $1, namespace: $ns}}]
current-context: $1
YAML
}
