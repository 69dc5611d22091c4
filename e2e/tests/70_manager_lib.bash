# Helpers for the attune-manager e2e tests (70-89). Sourced after lib.sh; not
# a test itself (the runner only runs *.sh).
#
# The manager runs as a background process of the test with the cluster's
# kubeconfig and a loopback port the kernel picks (--metrics-bind-address
# 127.0.0.1:0; the port is read from its log). Its figures are read from its
# own /metrics; everything about the cluster is asserted through kubectl.
# The image lane (E2E_MANAGER_IMAGE set, as make test does): the same tests
# with the manager in its image under podman, as a ServiceAccount of the
# rendered RBAC instead of the admin (e2e/image-lane/attune-manager).
if [ -n "${E2E_MANAGER_IMAGE:-}" ]; then
  ATTUNE_MANAGER=${ATTUNE_MANAGER:-$E2E_ROOT/image-lane/attune-manager}
  export E2E_MANAGER_IMAGE ATTUNE_RUN CLUSTER_DIR KUBECTL
fi
ATTUNE_MANAGER=${ATTUNE_MANAGER:-$REPO_ROOT/${BUILD:-build}/src/manager/attune-manager}
MGR_PID=""
MGR_PORT=""
MGR_LOG=""

# Under make test (E2E_REQUIRE_BUILD=1) a missing binary fails; by hand it skips.
require_manager() {
  if [ -n "${E2E_MANAGER_IMAGE:-}" ]; then
    podman image exists "$E2E_MANAGER_IMAGE" || fail "the image lane's $E2E_MANAGER_IMAGE is not built (make image)"
  else
    require_built "$ATTUNE_MANAGER" attune-manager
  fi
}

# manager_os_pid [PID]: the manager's own process (in the image lane, the
# container's init process, not the podman client).
manager_os_pid() {
  local pid=${1:-$MGR_PID}
  if [ -n "${E2E_MANAGER_IMAGE:-}" ]; then
    podman inspect -f '{{.State.Pid}}' "attune-mgr-$pid" 2>/dev/null
  else
    echo "$pid"
  fi
}

# kill_manager_hard PID: SIGKILL, a crash. In the image lane the signal goes to
# the container (podman forwards every signal but SIGKILL).
kill_manager_hard() {
  local pid=$1
  if [ -n "${E2E_MANAGER_IMAGE:-}" ]; then
    podman kill -s KILL "attune-mgr-$pid" >/dev/null 2>&1 || true
  fi
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# apply_policy_crd: the three Attune CRDs of deploy/kustomize, Established.
apply_policy_crd() {
  k apply -f "$REPO_ROOT/deploy/kustomize/base/crd/" >/dev/null || fail "the Attune CRDs were refused"
  # Not `kubectl wait`: it fails at once while a new CRD has no conditions yet.
  wait_until 60 attune_crds_established || fail "the Attune CRDs never became Established"
}
attune_crds_established() {
  local c
  for c in attunepolicies attunedefaults attunenamespacedefaults; do
    [ "$(k get crd "$c.attune.io" -o jsonpath='{.status.conditions[?(@.type=="Established")].status}' 2>/dev/null)" = True ] || return 1
  done
}

manager_ready() { curl -fsS --max-time 2 "http://127.0.0.1:$MGR_PORT/readyz" >/dev/null; }

# launch_manager [FLAGS...]: starts attune-manager and reads its metrics port
# from its log, without waiting for /readyz (start_manager waits).
launch_manager() {
  local logdir="$ATTUNE_RUN/manager-logs"
  mkdir -p "$logdir"
  MGR_LOG="$logdir/$(basename "$0" .sh)-$(date +%H%M%S)-$RANDOM.log"
  : >"$MGR_LOG"  # before the background start: the port is read from it at once
  "$ATTUNE_MANAGER" --kubeconfig "${KUBECONFIG:-}" --metrics-bind-address 127.0.0.1:0 --metrics-secure=false --log-format text "$@" \
    >"$MGR_LOG" 2>&1 &
  MGR_PID=$!
  at_exit stop_manager
  local i
  for i in $(seq 1 100); do
    MGR_PORT=$(sed -n 's/.*serving \/metrics .*address=127\.0\.0\.1:\([0-9]*\).*/\1/p' "$MGR_LOG" | head -1)
    [ -n "$MGR_PORT" ] && break
    kill -0 "$MGR_PID" 2>/dev/null || { tail -20 "$MGR_LOG" >&2; fail "attune-manager exited at start"; }
    sleep 0.1
  done
  [ -n "$MGR_PORT" ] || { tail -20 "$MGR_LOG" >&2; fail "attune-manager never reported its metrics port"; }
}

# start_manager [FLAGS...]: starts attune-manager and waits for /readyz.
start_manager() {
  launch_manager "$@"
  wait_until "${MGR_READY_TIMEOUT:-60}" manager_ready || { tail -30 "$MGR_LOG" >&2; fail "attune-manager never became ready"; }
  log "attune-manager pid $MGR_PID on 127.0.0.1:$MGR_PORT, log $MGR_LOG"
}

# stop_manager: SIGTERM, then SIGKILL after 10 s. Returns 0 when it exited in time.
stop_manager() {
  [ -n "$MGR_PID" ] || return 0
  local pid=$MGR_PID i
  MGR_PID=""
  kill -TERM "$pid" 2>/dev/null || return 0
  for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }; sleep 0.1; done
  echo "  attune-manager ignored SIGTERM for 10 s; killing it" >&2
  kill_manager_hard "$pid"
  return 1
}

manager_metrics() { curl -fsS --max-time 5 "http://127.0.0.1:$MGR_PORT/metrics"; }

# metric_value 'name{labels}' (exact series as the manager prints it); empty when absent.
metric_value() { manager_metrics | awk -v s="$1" '$1 == s { print $2 }'; }

# metric_sum NAME [REGEX]: the sum of NAME's series whose line matches REGEX.
metric_sum() {
  manager_metrics | awk -v n="$1" -v re="${2:-.}" 'index($1, n) == 1 && substr($1, length(n) + 1, 1) ~ /[{ ]|^$/ && $0 ~ re { s += $2 } END { print s + 0 }'
}

# The policy the manager tests share: "web", selecting Deployments labelled
# tier=web in $ns, and idle Deployments for it to report.
apply_web_policy() {
  k -n "$ns" apply -f - >/dev/null <<'YAML'
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: web}
spec: {targetRef: {kind: Deployment, selector: {matchLabels: {tier: web}}}, cpu: {}, memory: {}}
YAML
}
idle_deployment() {  # idle_deployment NAME
  k -n "$ns" create deployment "$1" --image=attune.local/pause:1 --replicas=0 >/dev/null
  k -n "$ns" label deployment "$1" tier=web >/dev/null
}
idle_names() { k -n "$ns" get attunepolicy web -o json | jq -c '[(.status.idleWorkloads // [])[].workload] | sort'; }

# harness_tls DIR CN: HARNESS (a fake service's, not Attune's): a throwaway CA
# "CN" in DIR/ca.crt and a certificate for 127.0.0.1 that it signs,
# DIR/tls.crt and DIR/tls.key.
harness_tls() {
  local dir=$1
  openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=$2" \
    -keyout "$dir/ca.key" -out "$dir/ca.crt" 2>/dev/null || fail "HARNESS: openssl could not make the CA"
  openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$dir/tls.key" -out "$dir/tls.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$dir/ext"
  openssl x509 -req -in "$dir/tls.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial -CAserial "$dir/ca.srl" \
    -days 1 -extfile "$dir/ext" -out "$dir/tls.crt" 2>/dev/null || fail "HARNESS: openssl could not sign the certificate"
}
