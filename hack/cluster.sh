#!/usr/bin/env bash
# A real local Kubernetes control plane on 127.0.0.1 with simulated nodes.
#
#   hack/cluster.sh up --k8s 1.36 [--nodes 3] [--node-cpu 4] [--node-memory 16Gi]
#                      [--declared-features auto|none|A,B] [--feature-gates G=true,...]
#                      [--max-requests-inflight N] [--max-mutating-requests-inflight N]
#                      [--runtime-config G/V=true,...] [--no-prometheus] [--controller-qps N]
#                      [--kubesim-qps N] [--kubesim-resync D] [--kubesim-full-resync D]
#                      [--kubesim-pod-workers N]
#   hack/cluster.sh upgrade --to 1.N+1    (control plane only, on the same etcd data)
#   hack/cluster.sh down
#   hack/cluster.sh status
#   hack/cluster.sh restart <etcd|kube-apiserver|kube-controller-manager|kube-scheduler|kubesim|pushgateway|prometheus>
#   hack/cluster.sh stop <component>      (kill one component, e.g. to test reconnects)
#
# Upstream etcd, kube-apiserver, kube-controller-manager and kube-scheduler of
# the chosen minor run as separate processes (feature gates are per process);
# kubesim plays the kubelet for N nodes and exports cAdvisor-style usage series
# that a real Prometheus scrapes, along with a real Pushgateway (where the
# upgrade chain pushes its gauges) and the upgrade gate's alert rules. State, logs and the kubeconfig live in
# $ATTUNE_RUN/cluster (default e2e/.run/cluster). `down` kills only the
# processes recorded in its pid files.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ATTUNE_RUN=${ATTUNE_RUN:-$here/e2e/.run}
dir=${CLUSTER_DIR:-$ATTUNE_RUN/cluster}
base=${ATTUNE_PORT_BASE:-16440}
COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler kubesim pushgateway prometheus)
CONTROL_PLANE=(etcd kube-apiserver kube-controller-manager kube-scheduler)

die() { echo "cluster: $*" >&2; exit 1; }
say() { echo "cluster: $*" >&2; }

port_of() {
  case $1 in
    etcd) echo $((base + 0));; etcd-peer) echo $((base + 1));; kube-apiserver) echo $((base + 3));;
    kube-controller-manager) echo $((base + 4));; kube-scheduler) echo $((base + 5));;
    kubesim) echo $((base + 6));; prometheus) echo $((base + 7));; webhook) echo $((base + 8));;
    pushgateway) echo $((base + 9));;
    *) die "no port for $1";;
  esac
}

# proc_running PID: exists and is not a zombie. Our components are detached,
# so after they exit they may linger as zombies until a reaper collects them.
proc_running() { [ -r "/proc/$1/stat" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]; }

pid_alive() {  # pid_alive NAME: the recorded process still runs and is ours
  local f="$dir/pids/$1" pid
  [ -f "$f" ] || return 1
  pid=$(cat "$f")
  proc_running "$pid" || return 1
  # Guard against PID reuse: our processes carry the cluster dir on their command line.
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$dir"
}

stop_one() {
  local name=$1 pid i
  pid_alive "$name" || { rm -f "$dir/pids/$name"; return 0; }
  pid=$(cat "$dir/pids/$name")
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 50); do proc_running "$pid" || break; sleep 0.2; done
  if proc_running "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
  for i in $(seq 1 25); do proc_running "$pid" || break; sleep 0.2; done
  rm -f "$dir/pids/$name"
}

down() {
  local i
  [ -d "$dir/pids" ] || { say "nothing to stop"; return 0; }
  for (( i=${#COMPONENTS[@]}-1; i>=0; i-- )); do stop_one "${COMPONENTS[$i]}"; done
  say "down (logs kept in $dir/logs)"
}

log_tail() {
  echo "----- last lines of $dir/logs/$1.log -----" >&2
  tail -n "${2:-25}" "$dir/logs/$1.log" >&2 2>/dev/null || true
  echo "-----" >&2
}

start_one() {  # start_one NAME: runs the command recorded in cmd/NAME, detached
  local name=$1
  pid_alive "$name" && die "$name is already running (pid $(cat "$dir/pids/$name"))"
  # setsid: the component survives this script and ignores its terminal.
  setsid bash "$dir/cmd/$name" >>"$dir/logs/$name.log" 2>&1 < /dev/null &
  echo $! > "$dir/pids/$name"
}

# wait_ready NAME SECONDS CMD...: fails with the component's log tail.
wait_ready() {
  local name=$1 secs=$2; shift 2
  local deadline=$(( $(date +%s) + secs ))
  until "$@" >/dev/null 2>&1; do
    # Twice, a moment apart: while the recorded process execs its binary,
    # /proc/PID/cmdline can read empty for an instant.
    if ! pid_alive "$name" && { sleep 0.2; ! pid_alive "$name"; }; then
      log_tail "$name" 40; die "$name exited before it became ready"
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then log_tail "$name" 40; die "$name not ready after ${secs}s"; fi
    sleep 0.3
  done
}

https_ok() { curl -sf --max-time 2 --cacert "$dir/pki/ca.crt" --cert "$dir/pki/admin.crt" --key "$dir/pki/admin.key" "$1"; }

gen_pki() {
  local p="$dir/pki"
  [ -f "$p/admin.crt" ] && [ -f "$p/sa.pub" ] && return 0
  mkdir -p "$p"
  say "generating certificates in $p"
  (
    cd "$p"
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=attune-local-ca" \
      -keyout ca.key -out ca.crt -addext "basicConstraints=critical,CA:TRUE" \
      -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
    sign() {  # sign NAME SUBJECT EXTFILE-CONTENT
      openssl req -newkey rsa:2048 -nodes -subj "$2" -keyout "$1.key" -out "$1.csr" 2>/dev/null
      printf '%s\n' "$3" > "$1.ext"
      openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
        -extfile "$1.ext" -out "$1.crt" 2>/dev/null
      rm -f "$1.csr" "$1.ext"
    }
    sign apiserver "/CN=kube-apiserver" "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,IP:10.0.0.1
extendedKeyUsage=serverAuth
keyUsage=critical,digitalSignature,keyEncipherment"
    sign admin "/O=system:masters/CN=attune-local-admin" "extendedKeyUsage=clientAuth
keyUsage=critical,digitalSignature,keyEncipherment"
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
  ) || die "openssl failed while generating certificates"
}

write_kubeconfig() {
  local b64; b64() { base64 -w0 < "$1"; }
  cat > "$dir/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: attune-local
  cluster:
    server: https://127.0.0.1:$(port_of kube-apiserver)
    certificate-authority-data: $(b64 "$dir/pki/ca.crt")
users:
- name: attune-local-admin
  user:
    client-certificate-data: $(b64 "$dir/pki/admin.crt")
    client-key-data: $(b64 "$dir/pki/admin.key")
contexts:
- name: attune-local
  context: {cluster: attune-local, user: attune-local-admin}
current-context: attune-local
EOF
  chmod 600 "$dir/kubeconfig"
}

record_cmd() {  # record_cmd NAME ARGV...: the exact command restart will re-run
  local name=$1; shift
  { echo "# $name, recorded by hack/cluster.sh"; printf 'exec'; printf ' %q' "$@"; echo; } > "$dir/cmd/$name"
}

up() {
  local minor="" nodes=3 cpu=4 mem=16Gi features=auto gates="" inflight="" mutating="" prom=1 runtime_config=""
  local ctrl_qps="" sim_qps=50 sim_resync=2s sim_full=30s sim_workers=1
  while [ $# -gt 0 ]; do
    case $1 in
      --k8s) minor=${2:?}; shift 2;;
      --nodes) nodes=${2:?}; shift 2;;
      --node-cpu) cpu=${2:?}; shift 2;;
      --node-memory) mem=${2:?}; shift 2;;
      --declared-features) features=${2?}; shift 2;;
      --feature-gates) gates=${2:?}; shift 2;;
      --max-requests-inflight) inflight=${2:?}; shift 2;;
      --max-mutating-requests-inflight) mutating=${2:?}; shift 2;;
      --runtime-config) runtime_config=${2:?}; shift 2;;
      --no-prometheus) prom=0; shift;;
      # Benchmarks with thousands of pods: the controllers' and kubesim's
      # client QPS, and kubesim's resync intervals (0 turns the full one off).
      --controller-qps) ctrl_qps=${2:?}; shift 2;;
      --kubesim-qps) sim_qps=${2:?}; shift 2;;
      --kubesim-resync) sim_resync=${2:?}; shift 2;;
      --kubesim-full-resync) sim_full=${2:?}; shift 2;;
      --kubesim-pod-workers) sim_workers=${2:?}; shift 2;;
      *) die "unknown flag '$1' (see the header of $0)";;
    esac
  done
  [ -n "$minor" ] || die "up needs --k8s 1.N"
  local patch
  patch=$(awk -v m="$minor" '$1==m {print $2}' "$here/hack/k8s-versions.txt")
  [ -n "$patch" ] || die "unknown Kubernetes minor '$minor'; supported: $(awk '!/^#/{printf "%s ", $1}' "$here/hack/k8s-versions.txt")"
  for c in etcd kube-apiserver; do pid_alive "$c" && die "a cluster is already running in $dir (hack/cluster.sh down first)"; done
  for c in etcd etcd-peer kube-apiserver kube-controller-manager kube-scheduler kubesim prometheus pushgateway; do
    local p; p=$(port_of "$c")
    if ss -Htln "sport = :$p" 2>/dev/null | grep -q .; then
      die "port $p (for $c) is already in use on 127.0.0.1; stop whatever holds it or set ATTUNE_PORT_BASE"
    fi
  done
  command -v openssl >/dev/null || die "openssl is missing (hack/deps.sh installs it)"
  [ $prom = 0 ] || command -v prometheus >/dev/null || die "prometheus is missing (hack/deps.sh installs it)"
  [ $prom = 0 ] || command -v prometheus-pushgateway >/dev/null || die "prometheus-pushgateway is missing (hack/deps.sh installs it)"

  local k8s sim
  k8s=$("$here/hack/controlplane-build.sh" "$minor") || die "could not build the $patch control plane"
  sim=$("$here/hack/kubesim-build.sh") || die "could not build kubesim"

  mkdir -p "$dir"/{pids,logs,cmd,bin}
  rm -rf "$dir/data"; mkdir -p "$dir/data"
  : > "$dir/logs/.keep"; for c in "${COMPONENTS[@]}"; do : > "$dir/logs/$c.log"; done
  gen_pki
  write_kubeconfig
  ln -sf "$(dirname "$k8s")/kubectl" "$dir/bin/kubectl"
  ln -sf "$sim" "$dir/bin/kubesim"

  # On failure from here on, leave nothing running.
  trap 'rc=$?; if [ $rc -ne 0 ]; then say "bring-up failed; stopping what was started"; down; fi' EXIT

  local fg=""
  # 1.32: in-place resize is alpha and must be enabled on every component.
  [ "$minor" = 1.32 ] && fg="InPlacePodVerticalScaling=true"
  [ -n "$gates" ] && fg="${fg:+$fg,}$gates"
  local fgflag=(); [ -n "$fg" ] && fgflag=(--feature-gates="$fg")

  local etcd_p peer_p api_p
  etcd_p=$(port_of etcd); peer_p=$(port_of etcd-peer); api_p=$(port_of kube-apiserver)
  record_cmd etcd "$(dirname "$k8s")/etcd" --name local --data-dir "$dir/data/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_p" --advertise-client-urls "http://127.0.0.1:$etcd_p" \
    --listen-peer-urls "http://127.0.0.1:$peer_p" --initial-advertise-peer-urls "http://127.0.0.1:$peer_p" \
    --initial-cluster "local=http://127.0.0.1:$peer_p" --unsafe-no-fsync --log-level warn
  local ctrl=()
  [ -n "$ctrl_qps" ] && ctrl=(--kube-api-qps="$ctrl_qps" --kube-api-burst=$((ctrl_qps * 2)))
  local extra=()
  [ -n "$inflight" ] && extra+=(--max-requests-inflight="$inflight")
  [ -n "$mutating" ] && extra+=(--max-mutating-requests-inflight="$mutating")
  [ -n "$runtime_config" ] && extra+=(--runtime-config="$runtime_config")
  record_cmd kube-apiserver "$(dirname "$k8s")/kube-apiserver" \
    --etcd-servers="http://127.0.0.1:$etcd_p" --bind-address=127.0.0.1 --advertise-address=127.0.0.1 \
    --secure-port="$api_p" --cert-dir="$dir/pki/apiserver-certs" \
    --tls-cert-file="$dir/pki/apiserver.crt" --tls-private-key-file="$dir/pki/apiserver.key" \
    --client-ca-file="$dir/pki/ca.crt" \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$dir/pki/sa.pub" --service-account-signing-key-file="$dir/pki/sa.key" \
    --service-cluster-ip-range=10.0.0.0/24 --authorization-mode=Node,RBAC --allow-privileged=true \
    --endpoint-reconciler-type=none --profiling=false "${fgflag[@]}" "${extra[@]}"
  record_cmd kube-controller-manager "$(dirname "$k8s")/kube-controller-manager" \
    --kubeconfig="$dir/kubeconfig" --bind-address=127.0.0.1 --secure-port="$(port_of kube-controller-manager)" \
    --cert-dir="$dir/pki/kcm-certs" --root-ca-file="$dir/pki/ca.crt" \
    --service-account-private-key-file="$dir/pki/sa.key" --use-service-account-credentials=false \
    --controllers='*,-horizontalpodautoscaling' --leader-elect=false --profiling=false "${fgflag[@]}" "${ctrl[@]}"
  record_cmd kube-scheduler "$(dirname "$k8s")/kube-scheduler" \
    --kubeconfig="$dir/kubeconfig" --bind-address=127.0.0.1 --secure-port="$(port_of kube-scheduler)" \
    --cert-dir="$dir/pki/scheduler-certs" --leader-elect=false --profiling=false "${fgflag[@]}" "${ctrl[@]}"
  record_cmd kubesim "$dir/bin/kubesim" --kubeconfig "$dir/kubeconfig" --minor "$minor" \
    --nodes "$nodes" --node-cpu "$cpu" --node-memory "$mem" --declared-features "$features" \
    --metrics-addr "127.0.0.1:$(port_of kubesim)" --kube-qps "$sim_qps" --resync "$sim_resync" \
    --full-resync "$sim_full" --pod-workers "$sim_workers"

  say "starting etcd on 127.0.0.1:$etcd_p"
  start_one etcd
  wait_ready etcd 30 curl -sf --max-time 2 "http://127.0.0.1:$etcd_p/health"
  say "starting kube-apiserver $patch on 127.0.0.1:$api_p"
  start_one kube-apiserver
  wait_ready kube-apiserver 120 https_ok "https://127.0.0.1:$api_p/readyz"
  say "starting kube-controller-manager and kube-scheduler"
  start_one kube-controller-manager
  start_one kube-scheduler
  wait_ready kube-controller-manager 60 curl -skf --max-time 2 "https://127.0.0.1:$(port_of kube-controller-manager)/healthz"
  wait_ready kube-scheduler 60 curl -skf --max-time 2 "https://127.0.0.1:$(port_of kube-scheduler)/healthz"
  say "starting kubesim with $nodes nodes"
  start_one kubesim
  wait_ready kubesim 60 nodes_ready "$nodes"
  wait_ready kube-controller-manager 60 "$dir/bin/kubectl" --kubeconfig "$dir/kubeconfig" -n default get serviceaccount default
  if [ $prom = 1 ]; then
    # The Pushgateway keeps what batch jobs (the upgrade chain) push; Prometheus
    # scrapes it with honor_labels so the pushed job label is kept, and
    # evaluates the upgrade gate's alert rules on it.
    # The persistence file also puts the cluster dir on its command line,
    # which is how pid_alive tells our processes from others.
    mkdir -p "$dir/data/pushgateway"
    record_cmd pushgateway prometheus-pushgateway --web.listen-address="127.0.0.1:$(port_of pushgateway)" \
      --persistence.file="$dir/data/pushgateway/metrics" --log.level=warn
    say "starting pushgateway on 127.0.0.1:$(port_of pushgateway)"
    start_one pushgateway
    wait_ready pushgateway 30 curl -sf --max-time 2 "http://127.0.0.1:$(port_of pushgateway)/-/ready"
    mkdir -p "$dir/data/prometheus"
    cat > "$dir/prometheus.yml" <<EOF
global: {scrape_interval: 2s, evaluation_interval: 2s}
rule_files: ['$here/deploy/upgrade-gate/alerts.rules.yml']
scrape_configs:
  - job_name: kubesim-cadvisor
    static_configs: [{targets: ['127.0.0.1:$(port_of kubesim)']}]
  - job_name: pushgateway
    honor_labels: true
    static_configs: [{targets: ['127.0.0.1:$(port_of pushgateway)']}]
EOF
    record_cmd prometheus prometheus --config.file="$dir/prometheus.yml" \
      --storage.tsdb.path="$dir/data/prometheus" --storage.tsdb.retention.time=1d \
      --web.listen-address="127.0.0.1:$(port_of prometheus)" --log.level=warn
    say "starting prometheus on 127.0.0.1:$(port_of prometheus)"
    start_one prometheus
    wait_ready prometheus 60 curl -sf --max-time 2 "http://127.0.0.1:$(port_of prometheus)/-/ready"
  fi
  cat > "$dir/env" <<EOF
K8S_MINOR=$minor
K8S_VERSION=$patch
API_SERVER=https://127.0.0.1:$api_p
PROMETHEUS_URL=http://127.0.0.1:$(port_of prometheus)
PUSHGATEWAY_URL=http://127.0.0.1:$(port_of pushgateway)
K8S_BIN_DIR=$(dirname "$k8s")
KUBESIM_METRICS=http://127.0.0.1:$(port_of kubesim)/metrics
WEBHOOK_PORT=$(port_of webhook)
SIM_NODES=$nodes
EOF
  trap - EXIT
  say "Kubernetes $patch is up; logs in $dir/logs"
  echo "export KUBECONFIG=$dir/kubeconfig"
}

nodes_ready() {
  local want=$1 n
  n=$("$dir/bin/kubectl" --kubeconfig "$dir/kubeconfig" get nodes -l attune.io/kubesim=true \
      -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' 2>/dev/null | grep -c True)
  [ "$n" -ge "$want" ]
}

status() {
  local c
  for c in "${COMPONENTS[@]}"; do
    if pid_alive "$c"; then echo "$c running pid $(cat "$dir/pids/$c")"; else echo "$c stopped"; fi
  done
  [ -f "$dir/env" ] && cat "$dir/env"
}

# upgrade --to 1.N+1: what kubeadm does to a control plane, on the local one.
# The control plane is stopped and the next minor's binaries start on the
# same etcd data directory with the same flags; nodes (kubesim, i.e. the
# kubelets), Prometheus and the Pushgateway keep running, so every object and
# pod survives. One minor at a time, as kubeadm requires.
upgrade() {
  local to=""
  while [ $# -gt 0 ]; do
    case $1 in
      --to) to=${2:?}; shift 2;;
      *) die "unknown flag '$1' for upgrade (usage: upgrade --to 1.N)";;
    esac
  done
  [ -n "$to" ] || die "upgrade needs --to 1.N"
  [ -f "$dir/env" ] || die "no cluster in $dir (hack/cluster.sh up first)"
  pid_alive kube-apiserver || die "the kube-apiserver of $dir is not running"
  local from from_bin patch
  from=$(sed -n 's/^K8S_MINOR=//p' "$dir/env")
  from_bin=$(sed -n 's/^K8S_BIN_DIR=//p' "$dir/env")
  [ -n "$from_bin" ] || from_bin=$(dirname "$(readlink "$dir/bin/kubectl")")
  [ "${to%%.*}" = "${from%%.*}" ] && [ "${to#*.}" = $(( ${from#*.} + 1 )) ] \
    || die "can only upgrade one minor at a time: $from -> $to (kubeadm's rule)"
  patch=$(awk -v m="$to" '$1==m {print $2}' "$here/hack/k8s-versions.txt")
  [ -n "$patch" ] || die "unknown Kubernetes minor '$to'"
  local k8s to_bin
  k8s=$("$here/hack/controlplane-build.sh" "$to") || die "could not build the $patch control plane"
  to_bin=$(dirname "$k8s")
  say "upgrading the control plane $from -> $to ($patch) on the same etcd data"
  local i c
  for (( i=${#CONTROL_PLANE[@]}-1; i>=0; i-- )); do stop_one "${CONTROL_PLANE[$i]}"; done
  for c in "${CONTROL_PLANE[@]}"; do
    sed -i "s|$from_bin/|$to_bin/|g" "$dir/cmd/$c"
    grep -qF "$to_bin/" "$dir/cmd/$c" || die "could not point $c at $to_bin"
  done
  start_one etcd
  wait_ready etcd 60 curl -sf --max-time 2 "http://127.0.0.1:$(port_of etcd)/health"
  start_one kube-apiserver
  wait_ready kube-apiserver 120 https_ok "https://127.0.0.1:$(port_of kube-apiserver)/readyz"
  start_one kube-controller-manager
  start_one kube-scheduler
  wait_ready kube-controller-manager 60 curl -skf --max-time 2 "https://127.0.0.1:$(port_of kube-controller-manager)/healthz"
  wait_ready kube-scheduler 60 curl -skf --max-time 2 "https://127.0.0.1:$(port_of kube-scheduler)/healthz"
  ln -sfn "$to_bin/kubectl" "$dir/bin/kubectl"
  sed -i -e "s|^K8S_MINOR=.*|K8S_MINOR=$to|" -e "s|^K8S_VERSION=.*|K8S_VERSION=$patch|" \
    -e "s|^K8S_BIN_DIR=.*|K8S_BIN_DIR=$to_bin|" "$dir/env"
  grep -q '^K8S_BIN_DIR=' "$dir/env" || echo "K8S_BIN_DIR=$to_bin" >> "$dir/env"
  say "upgraded to Kubernetes $patch"
}

restart() {
  local name=${1:?component}
  [ -f "$dir/cmd/$name" ] || die "no recorded command for '$name' (is the cluster up?)"
  stop_one "$name"
  start_one "$name"
  case $name in
    kube-apiserver) wait_ready "$name" 120 https_ok "https://127.0.0.1:$(port_of kube-apiserver)/readyz";;
    etcd) wait_ready "$name" 30 curl -sf --max-time 2 "http://127.0.0.1:$(port_of etcd)/health";;
  esac
  say "$name restarted"
}

cmd=${1:-}; shift || true
case $cmd in
  up) up "$@";;
  down) down;;
  status) status;;
  restart) restart "$@";;
  upgrade) upgrade "$@";;
  stop) stop_one "${1:?component}";;
  *) die "usage: $0 up --k8s 1.N [...] | upgrade --to 1.N | down | status | restart NAME | stop NAME";;
esac
