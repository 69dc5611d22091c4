#!/usr/bin/env bash
# Runs the e2e tests (e2e/tests/*.sh, or those matching $1) against the
# cluster(s) that hack/cluster.sh brought up, and prints one closing line:
#   e2e: N passed, N failed, N skipped
#   e2e/run.sh --count [filter]    prints how many tests the filter matches
#
# One cluster (the default): the tests run one after the other, their output
# streamed. Several clusters (E2E_CLUSTERS="RUN_DIR:PORT_BASE ...", which
# hack/e2e.sh --shards N sets): one worker per cluster takes the next test off
# a shared queue, the longest first, so that one test's waits overlap
# another's. Each test still has a control plane to itself, so no test sees
# another's objects, restarts or apiserver counters. A test whose header says
# `# e2e: runs after every other test` (the oracle's summary) runs last, on the
# first cluster. Each test's output is printed whole when it ends.
# docs/local-control-plane.md, "The e2e suite on several clusters".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
count_only=""
[ "${1:-}" = --count ] && { count_only=1; shift; }
pattern=${1:-}
# Tests that summarise the run (99's oracle) tell a whole run from a filtered one.
export E2E_FILTER=$pattern

tests=(); last=()
for t in "$here"/tests/*.sh; do
  name=$(basename "$t" .sh)
  [ -n "$pattern" ] && [[ "$name" != *$pattern* ]] && continue
  if head -n 30 "$t" | grep -q '^# e2e: runs after every other test'; then last+=("$t"); else tests+=("$t"); fi
done
if [ -n "$count_only" ]; then echo $(( ${#tests[@]} + ${#last[@]} )); exit 0; fi
# A filter that matches nothing ran no test: that is a failure, not a pass.
if [ $(( ${#tests[@]} + ${#last[@]} )) -eq 0 ]; then
  echo "e2e: no test matches '$pattern'"
  echo "e2e: 0 passed, 1 failed, 0 skipped"
  exit 1
fi

read -r -a clusters <<<"${E2E_CLUSTERS:-}"
# One cluster (--shards 1) sets no E2E_CLUSTERS: an empty list under set -u.
first_run=${clusters[0]:-}
first_run=${first_run%%:*}
first_run=${first_run:-${ATTUNE_RUN:-$here/.run}}
# Every executor test records its /resize counts in one file, which the
# oracle reads at the end, whichever cluster each test ran on.
export E2E_ORACLE_RUN=${E2E_ORACLE_RUN:-$first_run}
results=$(mktemp -d "${TMPDIR:-/tmp}/attune-e2e.XXXXXX")
trap 'rm -rf "$results"' EXIT
: >"$results/results"

# verdict NAME RC SECONDS [CLUSTER]: the one line per test, and its record.
verdict() {
  local where=${4:+, cluster $4}
  case $2 in
    0) echo "ok   $1 ($3s$where)";;
    77) echo "skip $1 ($3s$where)";;
    *) echo "FAIL $1 ($3s$where, rc=$2)";;
  esac
  printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$results/results"
}

# run_streamed TEST: on the cluster the environment names, output as it comes.
run_streamed() {
  local name start rc
  name=$(basename "$1" .sh); start=$(date +%s)
  bash "$1" </dev/null; rc=$?
  verdict "$name" "$rc" $(( $(date +%s) - start ))
}

# The queue, longest first: the last run's durations on this machine
# ($first_run/e2e-durations.tsv), else the hint kept with the tests; a test
# neither knows goes first, as if it were long.
durations=$first_run/e2e-durations.tsv
[ -s "$durations" ] || durations=$here/durations.tsv
order_by_duration() {
  local t
  for t in "$@"; do
    printf '%s\t%s\n' "$(awk -F'\t' -v n="$(basename "$t" .sh)" '$1 == n {d = $2} END {print (d == "" ? 100000 : d)}' \
      "$durations" 2>/dev/null || echo 100000)" "$t"
  done | sort -t$'\t' -k1,1nr -k2,2 | cut -f2
}

if [ ${#clusters[@]} -le 1 ]; then
  for t in "${tests[@]}" "${last[@]}"; do run_streamed "$t"; done
else
  order_by_duration "${tests[@]}" >"$results/queue"
  # next_test: pops the queue's first line under a lock; fails when empty.
  next_test() {
    local line
    exec 8>"$results/queue.lock"; flock 8
    line=$(head -n 1 "$results/queue"); sed -i 1d "$results/queue"
    flock -u 8; exec 8>&-
    [ -n "$line" ] && echo "$line"
  }
  worker() {  # worker INDEX RUN_DIR PORT_BASE
    local t name start rc out
    while t=$(next_test); do
      name=$(basename "$t" .sh); out="$results/$name.out"; start=$(date +%s)
      env -u KUBECONFIG ATTUNE_RUN="$2" ATTUNE_PORT_BASE="$3" bash "$t" </dev/null >"$out" 2>&1
      rc=$?
      { flock 9; cat "$out"; verdict "$name" "$rc" $(( $(date +%s) - start )) "$1"; } 9>"$results/print.lock"
    done
  }
  pids=()
  for i in "${!clusters[@]}"; do
    worker "$i" "${clusters[$i]%%:*}" "${clusters[$i]##*:}" & pids+=($!)
  done
  wait "${pids[@]}"
  for t in "${last[@]}"; do
    (unset KUBECONFIG; export ATTUNE_RUN=$first_run ATTUNE_PORT_BASE=${clusters[0]##*:}
     run_streamed "$t")
  done
fi

# A whole run refreshes this machine's durations for the next run's queue.
if [ -z "$pattern" ]; then
  mkdir -p "$first_run"
  cut -f1,3 "$results/results" | sort >"$first_run/e2e-durations.tsv.new" \
    && mv "$first_run/e2e-durations.tsv.new" "$first_run/e2e-durations.tsv"
fi
pass=$(awk -F'\t' '$2 == 0' "$results/results" | wc -l)
skipn=$(awk -F'\t' '$2 == 77' "$results/results" | wc -l)
failed=$(awk -F'\t' '$2 != 0 && $2 != 77 {print $1}' "$results/results" | sort | tr '\n' ' ')
failn=$(awk -F'\t' '$2 != 0 && $2 != 77' "$results/results" | wc -l)
[ -n "$failed" ] && echo "failed: ${failed% }"
echo "e2e: $pass passed, $failn failed, $skipn skipped"
[ "$failn" -eq 0 ]
