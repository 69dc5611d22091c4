#!/usr/bin/env bash
# `make bench-scale`: attune-manager against a local 1.36 control plane that
# holds thousands of realistic pods (bench/scale/workload.py). Figures, not
# assertions; they go in bench/RESULTS.md with the command that made them.
#
#   hack/bench-scale.sh [--pods 10000] [--churn 120] [--k8s 1.36] [--keep] [--reuse]
#                       [--alloc glibc|jemalloc|mimalloc] [--heaptrack] [--runs 1]
#                       [--manager-flags "..."] [--summary-only] [--cold-starts 5]
#                       [--policy auto|observe-vpa] [--perf] [--full-passes 0]
#
# Steps: bring the cluster up (pods/100 simulated nodes, no Prometheus, kubesim
# with its full resync off so it costs what changes), measure the manager on
# the empty cluster (the baseline), create pods/10 Deployments of 10 replicas in
# 20 namespaces with one AttunePolicy each, wait until every pod is Running,
# then per run: start the manager and report cold start to /readyz, VmRSS and
# VmHWM at sync and 60 s later, CPU seconds to sync, the apiserver requests it
# made (its own attune_kube_requests_total), then a churn phase of fixed length
# (pods deleted and recreated by their ReplicaSets, Deployments scaled up and
# back) with RSS and CPU. --cold-starts N then starts the manager N more times
# and prints the min, median and max of cold start to /readyz (one run is
# noise on a shared machine: the apiserver's own list time varies by
# +-0.5 s from one run to the next). --reuse keeps an existing cluster with the pods
# already there; --keep leaves the cluster up afterwards. --policy picks the
# namespaces' AttunePolicy: auto (default: Auto with a Manual source restating
# the live sizes, so the executor plans every pod and sends nothing) or
# observe-vpa (Observe with a VPA source, the VPA CRD installed: the setting
# the Go operator supports too, with nothing to resize); it is applied on
# every run, so one cluster serves both. --perf records run 1's first minute
# after sync with `perf record --call-graph dwarf` and prints the top of the
# report (inclusive, by symbol) from it. --full-passes N, after the first
# minute, makes N deliberate full passes: every policy's spec changes
# (updateStrategy.maxStatusRecommendations set to its default 100, then
# unset again), so every workload is looked at again with nothing to change;
# each prints the manager's CPU above its idle rate until it is quiet again.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
export ATTUNE_PORT_BASE=${ATTUNE_PORT_BASE:-16440}
# The manager runs as deployed: every informer its features read (the
# executor's pods, nodes, namespaces, LimitRanges and ResourceQuotas included).
pods=10000 churn=120 minor=1.36 keep=0 reuse=0 alloc=glibc heap=0 runs=1 summary_only=0 cold_starts=5 policy=auto perf=0 full_passes=0
mflags=""
while [ $# -gt 0 ]; do
  case $1 in
    --pods) pods=${2:?}; shift 2;;
    --churn) churn=${2:?}; shift 2;;
    --k8s) minor=${2:?}; shift 2;;
    --keep) keep=1; shift;;
    --reuse) reuse=1; keep=1; shift;;
    --alloc) alloc=${2:?}; shift 2;;
    --heaptrack) heap=1; shift;;
    --runs) runs=${2:?}; shift 2;;
    --manager-flags) mflags=${2?}; shift 2;;
    --summary-only) summary_only=1; shift;;
    --cold-starts) cold_starts=${2:?}; shift 2;;
    --policy) policy=${2:?}; shift 2;;
    --perf) perf=1; shift;;
    --full-passes) full_passes=${2:?}; shift 2;;
    *) echo "bench-scale: unknown flag '$1' (see the header of $0)" >&2; exit 2;;
  esac
done
ATTUNE_RUN=${ATTUNE_RUN:-$here/e2e/.run}
export KUBECONFIG=$ATTUNE_RUN/cluster/kubeconfig
kubectl="$ATTUNE_RUN/cluster/bin/kubectl"
manager=${ATTUNE_MANAGER:-$here/${BUILD:-build}/src/manager/attune-manager}
out="$ATTUNE_RUN/bench-scale"
mkdir -p "$out"
port=$((ATTUNE_PORT_BASE + 9))
ns_count=20 replicas=10
deploys=$(( (pods + replicas - 1) / replicas ))
per_ns=$(( (deploys + ns_count - 1) / ns_count ))
nodes=$(( (pods + 99) / 100 ))
[ -x "$manager" ] || { echo "bench-scale: $manager is not built (make build)" >&2; exit 2; }
case $alloc in
  glibc) preload="";;
  jemalloc) preload=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2;;
  mimalloc) preload=/usr/lib/x86_64-linux-gnu/libmimalloc.so.2;;
  *) echo "bench-scale: --alloc glibc|jemalloc|mimalloc" >&2; exit 2;;
esac
[ -z "$preload" ] || [ -f "$preload" ] || { echo "bench-scale: $preload missing (hack/deps.sh bench)" >&2; exit 2; }
[ $heap = 0 ] || command -v heaptrack >/dev/null || { echo "bench-scale: heaptrack missing (hack/deps.sh bench)" >&2; exit 2; }

say() { [ $summary_only = 1 ] || echo "bench-scale: $*" >&2; }
k() { "$kubectl" "$@"; }
clk=$(getconf CLK_TCK)
cpu_s() { awk -v t="$clk" '{printf "%.2f", ($14 + $15) / t}' "/proc/$1/stat"; }
vm() { awk -v f="$2:" '$1 == f {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }  # MiB
now() { date +%s.%N; }
metrics() { curl -fsS --max-time 5 "http://127.0.0.1:$port/metrics"; }
requests_by_verb() {  # "list=N watch=N get=N ..." from attune_kube_requests_total
  metrics | awk '/^attune_kube_requests_total\{/ { match($0, /verb="[^"]*"/); v = substr($0, RSTART + 6, RLENGTH - 7); n[v] += $2; t += $2 }
                 END { for (v in n) printf "%s=%d ", v, n[v]; printf "total=%d", t }'
}
running_pods() { k get pods -A -l attune.io/bench-pod=true --field-selector=status.phase=Running --no-headers 2>/dev/null | wc -l; }

mgr_pid="" mgr_measured=""
stop_manager() {  # the manager itself first (under heaptrack it is the wrapper's child)
  [ -n "$mgr_pid" ] || return 0
  local p i
  for p in $mgr_measured $mgr_pid; do
    kill -TERM "$p" 2>/dev/null || true
    for i in $(seq 1 150); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
  done
  wait "$mgr_pid" 2>/dev/null || true
  mgr_pid="" mgr_measured=""
}
cleanup() {
  stop_manager
  if [ $keep = 0 ]; then "$here/hack/cluster.sh" down >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

# start_manager LOG [WRAPPER...]: starts it, waits for /readyz; sets mgr_pid,
# ready_s (exec to the first 200 from /readyz).
start_manager() {
  local log=$1; shift
  local t0; t0=$(now)
  # shellcheck disable=SC2086
  env ${preload:+LD_PRELOAD=$preload} "$@" "$manager" --kubeconfig "$KUBECONFIG" \
    --metrics-bind-address "127.0.0.1:$port" --metrics-secure=false --log-format text $mflags >"$log" 2>&1 &
  mgr_pid=$!
  local deadline; deadline=$(( $(date +%s) + 300 ))
  until curl -fs --max-time 1 "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; do
    kill -0 "$mgr_pid" 2>/dev/null || { tail -20 "$log" >&2; echo "bench-scale: the manager exited" >&2; exit 1; }
    [ "$(date +%s)" -lt "$deadline" ] || { tail -20 "$log" >&2; echo "bench-scale: never ready" >&2; exit 1; }
    sleep 0.01
  done
  ready_s=$(awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.2f", b - a}')
  # heaptrack wraps the manager: measure the manager, not the wrapper.
  if [ $# -gt 0 ]; then
    local child; child=$(pgrep -P "$mgr_pid" -f attune-manager | head -1 || true)
    [ -n "$child" ] && mgr_measured=$child || mgr_measured=$mgr_pid
  else
    mgr_measured=$mgr_pid
  fi
}

# ---- cluster and workload ----
if [ $reuse = 0 ]; then
  say "cluster up: $minor, $nodes nodes"
  "$here/hack/cluster.sh" up --k8s "$minor" --nodes "$nodes" --node-cpu 64 --node-memory 256Gi --no-prometheus \
    --controller-qps 400 --kubesim-qps 400 --kubesim-full-resync 0 --kubesim-pod-workers 8 >/dev/null
fi
# All three CRDs: the manager reads the two defaults tiers too, and is not
# ready before their informers have listed.
k apply -f "$here/deploy/kustomize/base/crd/" >/dev/null
k wait --for=condition=Established crd/attunepolicies.attune.io crd/attunedefaults.attune.io \
  crd/attunenamespacedefaults.attune.io --timeout=60s >/dev/null

have=$(running_pods)
if [ "$have" -lt "$pods" ]; then
  say "baseline: the manager on a cluster without the bench's pods"
  start_manager "$out/manager-empty.log"
  sleep 2
  empty_rss=$(vm "$mgr_measured" VmRSS)
  stop_manager
  say "creating $deploys Deployments x $replicas replicas in $ns_count namespaces"
  t_load=$(now)
  python3 "$here/bench/scale/workload.py" namespaces "$ns_count" | k apply -f - >/dev/null
  for n in $(seq 0 $((ns_count - 1))); do
    ns=$(printf 'bench-%02d' "$n")
    python3 "$here/bench/scale/workload.py" deployments "$ns" "$per_ns" "$replicas" $((n * per_ns)) \
      | k apply --server-side -f - >/dev/null
  done
  deadline=$(( $(date +%s) + 900 ))
  while :; do
    have=$(running_pods)
    [ "$have" -ge "$pods" ] && break
    [ "$(date +%s)" -lt "$deadline" ] || { echo "bench-scale: only $have of $pods pods Running after 15 min" >&2; exit 1; }
    say "  $have/$pods pods Running"
    sleep 10
  done
  say "$have pods Running after $(awk -v a="$t_load" -v b="$(now)" 'BEGIN {printf "%.0f", b - a}') s"
else
  empty_rss=""
fi

case $policy in
  auto) ;;
  observe-vpa) k apply -f "$here/e2e/crds/verticalpodautoscaler.yaml" >/dev/null
    k wait --for=condition=Established crd/verticalpodautoscalers.autoscaling.k8s.io --timeout=60s >/dev/null;;
  *) echo "bench-scale: --policy auto|observe-vpa" >&2; exit 2;;
esac
for n in $(seq 0 $((ns_count - 1))); do
  python3 "$here/bench/scale/workload.py" policy "$(printf 'bench-%02d' "$n")" "$policy" | k apply -f - >/dev/null
done

objects=$(k get pods,replicasets,deployments -A --no-headers 2>/dev/null | wc -l)
load=$(cut -d' ' -f1-3 /proc/loadavg)
[ $summary_only = 1 ] || echo "== bench-scale: k8s $minor, $have pods Running, $objects pods+ReplicaSets+Deployments, $nodes nodes, policy $policy, alloc $alloc, load $load"
[ -n "$empty_rss" ] && [ $summary_only = 0 ] && echo "   empty-cluster manager RSS: $empty_rss MiB"

for run in $(seq 1 "$runs"); do
  log="$out/manager-run$run.log"
  start_manager "$log"
  pid=$mgr_measured
  sync_cpu=$(cpu_s "$pid"); sync_rss=$(vm "$pid" VmRSS); sync_hwm=$(vm "$pid" VmHWM)
  sync_reqs=$(requests_by_verb)
  cache_bytes=$(metrics | awk '/^attune_kube_informer_cache_bytes\{/ { match($0, /resource="[^"]*"/); r = substr($0, RSTART + 10, RLENGTH - 11); sub(/\..*/, "", r); printf "%s=%.1fMiB ", r, $2 / 1048576 }')
  [ $summary_only = 1 ] || echo "run $run: ready ${ready_s}s  cpu-to-sync ${sync_cpu}s  RSS ${sync_rss} MiB  HWM ${sync_hwm} MiB  requests: $sync_reqs"
  [ $summary_only = 1 ] || echo "run $run: cache text by informer: $cache_bytes"
  if [ "$run" = 1 ] && [ -n "$empty_rss" ]; then
    # The one line `make bench` prints: what each cached pod costs the real process.
    awk -v p="$have" -v r="$sync_rss" -v e="$empty_rss" -v t="$ready_s" 'BEGIN {
      printf "attune-manager: %d pods, RSS at sync %.1f MiB (%.1f MiB on the empty cluster): %.2f KiB per pod; ready in %.2f s\n",
             p, r, e, (r - e) * 1024 / p, t }'
  fi
  [ $summary_only = 1 ] && { stop_manager; continue; }
  if [ $perf = 1 ] && [ "$run" = 1 ]; then
    perf record -F 199 --call-graph dwarf,16384 -o "$out/perf.data" -p "$pid" -- sleep 60 >/dev/null 2>&1
    perf report -i "$out/perf.data" --no-children --sort symbol --stdio 2>/dev/null | grep -E '^ +[0-9]' | head -25 > "$out/perf-self.txt" || true
    perf report -i "$out/perf.data" --children --sort symbol --stdio -g none 2>/dev/null | grep -E '^ +[0-9]' | head -60 > "$out/perf-children.txt" || true
    echo "run $run: perf of the first minute in $out/perf.data (top: $out/perf-self.txt, $out/perf-children.txt)"
  else
    sleep 60
  fi
  echo "run $run: +60s RSS $(vm "$pid" VmRSS) MiB  HWM $(vm "$pid" VmHWM) MiB  cpu $(cpu_s "$pid")s"
  if [ "$full_passes" -gt 0 ]; then
    mapfile -t pnss < <(k get ns -l attune.io/bench=true -o name | sed 's|namespace/||')
    workloads=$(k get deploy -A -l attune.io/bench=true --no-headers 2>/dev/null | wc -l)
    i0=$(cpu_s "$pid"); sleep 10; i1=$(cpu_s "$pid")
    idle=$(awk -v a="$i0" -v b="$i1" 'BEGIN {printf "%.4f", (b - a) / 10}')
    for fp in $(seq 1 "$full_passes"); do
      [ $((fp % 2)) = 1 ] && v=100 || v=null
      c0=$(cpu_s "$pid"); t0=$(now)
      for ns in "${pnss[@]}"; do
        k -n "$ns" patch attunepolicy bench --type merge \
          -p "{\"spec\":{\"updateStrategy\":{\"maxStatusRecommendations\":$v}}}" >/dev/null
      done
      # Quiet: three seconds in a row within 10 ms of the idle rate.
      prev=$c0 quiet=0 busy_end=$c0 t_busy=$t0 deadline=$(( $(date +%s) + 180 ))
      while [ $quiet -lt 3 ] && [ "$(date +%s)" -lt "$deadline" ]; do
        sleep 1; c=$(cpu_s "$pid")
        if awk -v a="$prev" -v b="$c" -v r="$idle" 'BEGIN {exit !((b - a) <= r + 0.01)}'; then quiet=$((quiet + 1))
        else quiet=0; busy_end=$c; t_busy=$(now); fi
        prev=$c
      done
      awk -v a="$c0" -v b="$busy_end" -v r="$idle" -v t0="$t0" -v t1="$t_busy" -v w="$workloads" -v n="$fp" -v run="$run" 'BEGIN {
        x = (b - a) - r * (t1 - t0); if (x < 0) x = 0
        printf "run %s: full pass %d: %.3f s of CPU above idle (%.4f s/s) for %d workloads (%.0f us per workload), busy for %.1f s\n",
               run, n, x, r, w, (w > 0) ? x * 1e6 / w : 0, t1 - t0 }'
    done
  fi
  if [ "$churn" -gt 0 ]; then
    watch_events() { metrics | awk '/^attune_kube_watch_events_total\{/ {s += $2} END {print s + 0}'; }
    c0=$(cpu_s "$pid"); e0=$(watch_events); t_end=$(( $(date +%s) + churn )); rss_min=1e9; rss_max=0; i=0
    mapfile -t nss < <(k get ns -l attune.io/bench=true -o name | sed 's|namespace/||')
    while [ "$(date +%s)" -lt "$t_end" ]; do
      ns=${nss[$((RANDOM % ${#nss[@]}))]}
      # 20 pods deleted (their ReplicaSets recreate them) and one Deployment
      # scaled up by 2 and back, every 2 s.
      k -n "$ns" get pods -o name 2>/dev/null | shuf -n 20 | xargs -r "$kubectl" -n "$ns" delete --wait=false >/dev/null 2>&1 || true
      d=$(k -n "$ns" get deploy -o name | shuf -n 1)
      if [ $((i % 2)) = 0 ]; then k -n "$ns" scale "$d" --replicas=$((replicas + 2)) >/dev/null; scaled=$d; scaled_ns=$ns
      else k -n "$scaled_ns" scale "$scaled" --replicas=$replicas >/dev/null; fi
      r=$(vm "$pid" VmRSS)
      rss_min=$(awk -v a="$rss_min" -v b="$r" 'BEGIN {print (b < a) ? b : a}')
      rss_max=$(awk -v a="$rss_max" -v b="$r" 'BEGIN {print (b > a) ? b : a}')
      i=$((i + 1)); sleep 2
    done
    [ $((i % 2)) = 1 ] && k -n "$scaled_ns" scale "$scaled" --replicas=$replicas >/dev/null
    # CPU and watch events of the churn window alone, and their ratio.
    c1=$(cpu_s "$pid"); e1=$(watch_events)
    echo "run $run: churn ${churn}s ($i rounds): RSS min $rss_min max $rss_max end $(vm "$pid" VmRSS) MiB  HWM $(vm "$pid" VmHWM) MiB  cpu $(awk -v a="$c0" -v b="$c1" 'BEGIN {printf "%.2f", b - a}')s  events: $((e1 - e0)) ($(awk -v a="$c0" -v b="$c1" -v n=$((e1 - e0)) 'BEGIN {printf "%.0f", (n > 0) ? (b - a) * 1e6 / n : 0}') us of CPU per event)"
  fi
  grep -E "informers synced|malloc" "$log" | sed 's/^/   log: /' | head -5 || true
  stop_manager
done

if [ $summary_only = 0 ] && [ "$cold_starts" -gt 0 ]; then
  readies=() cpus=()
  for i in $(seq 1 "$cold_starts"); do
    start_manager "$out/manager-cold$i.log"
    readies+=("$ready_s"); cpus+=("$(cpu_s "$mgr_measured")")
    stop_manager
    sleep 1
  done
  stats() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {printf "min %.2f median %.2f max %.2f", a[1], (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2), a[NR]}'; }
  echo "cold start to /readyz over $cold_starts runs: $(stats "${readies[@]}") s; CPU to sync: $(stats "${cpus[@]}") s"
fi

if [ $heap = 1 ]; then
  say "heaptrack run"
  rm -f "$out"/heaptrack.*
  start_manager "$out/manager-heaptrack.log" heaptrack -o "$out/heaptrack.attune"
  echo "heaptrack: ready ${ready_s}s (slowed by heaptrack)  RSS $(vm "$mgr_measured" VmRSS) MiB"
  sleep 10
  stop_manager
  sleep 1
  f=$(ls "$out"/heaptrack.attune* | head -1)
  heaptrack_print -f "$f" --print-peaks 1 --print-allocators 0 --print-temporary 0 --print-leaks 0 \
    --peak-limit 12 2>/dev/null > "$out/heaptrack.txt" || true
  grep -E "^peak heap memory|^peak RSS|^calls to allocation" "$out/heaptrack.txt" | sed 's/^/heaptrack: /'
  heaptrack_print -f "$f" --flamegraph-cost-type peak -F "$out/heaptrack-peak-stacks.txt" >/dev/null 2>&1 || true
  python3 "$here/bench/scale/heap_breakdown.py" "$out/heaptrack-peak-stacks.txt" | sed 's/^/heaptrack: /'
  echo "heaptrack: full report in $out/heaptrack.txt ($f)"
fi
