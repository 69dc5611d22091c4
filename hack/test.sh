#!/usr/bin/env bash
# `make test`: unit tests, the alert-rule tests, the Helm chart's checks, then
# the e2e suite on the newest stable minor. Ends with one line
# `test: N passed, N failed` (gtest cases + rule checks + chart checks + e2e tests).
#
# The same work, ordered for the wall time on 2 cores (bench/RESULTS.md,
# "Where a fresh machine's make test waits, and what changed"):
# - the Go-built tools the e2e suite needs (the 1.36 control plane, kubesim)
#   build in the background from the start, at the lowest priority: their module
#   downloads wait on the network, and their compiles take only what the C++
#   build leaves of the cores;
# - the C++ build (line tables only, -g1, in a build directory it creates)
#   first builds what the e2e suite runs (the manager, the plugin, the e2e
#   drivers), then the images;
# - the e2e suite, mostly waiting on cooldowns, rate windows and rotations,
#   runs on E2E_SHARDS clusters (default 3) in the background, while the rest
#   of the C++ build (the gtest executables), the unit tests and the checks run
#   beside it at a lower priority. Its output is printed whole at the end
#   (and is in BUILD/e2e.out as it runs).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
build=${BUILD:-build}
# Where a newcomer's wait goes: each phase's wall time, printed at the end.
phases=(); t_start=${ATTUNE_TEST_START:-$(date +%s)}; t_phase=$t_start
phase() { local now; now=$(date +%s); phases+=("$(printf '%-46s %5ss' "$1" $((now - t_phase)))"); t_phase=$now; }
[ -z "${ATTUNE_TEST_START:-}" ] || phase "deps (apt, prometheus-cpp, Go)"
mkdir -p "$build"

# The Go tools the e2e suite needs, in the background. Each script caches its
# binary and takes a lock (or builds to a private name), so the suite's own
# calls find them built. The chart tools build later, beside the suite.
t_go=$(date +%s)
( set -e
  nice -n 19 hack/controlplane-build.sh "${K8S:-1.36}" >/dev/null
  nice -n 19 hack/kubesim-build.sh >/dev/null
  echo "go tools: the control plane and kubesim built or cached in $(( $(date +%s) - t_go ))s" ) >"$build/go-tools.out" 2>&1 &
go_pid=$!

# What the e2e suite runs from the build (e2e/lib.sh, e2e/tests/*).
e2e_targets=(src/manager/attune-manager src/cli/kubectl-attune test/core/plan_resize_driver
             test/core/lifecycle_status_driver test/controller/promql_driver)
# A build directory that make test creates (a fresh clone) gets line tables
# only (-Ddebug_info=lines, -g1): about 30% less compile CPU for the -O2
# libraries and binaries; an existing one keeps its configuration.
setup=(); [ -f "$build/build.ninja" ] || setup=(-Ddebug_info=lines)
upass=0; ufail=0; e2e_built=1
TARGETS="${e2e_targets[*]}" hack/build.sh "$build" "${setup[@]}" || { echo "test: the C++ build failed"; ufail=1; e2e_built=0; }
phase "C++ build: what the e2e suite runs"

# The e2e suite runs the manager in its image, as a ServiceAccount of the
# rendered RBAC (the image lane, e2e/image-lane): build the image first.
if [ "$e2e_built" = 1 ]; then
  if BUILD="$build" hack/image.sh >"$build/image.out" 2>&1; then
    cat "$build/image.out"
    export E2E_MANAGER_IMAGE="attune/attune-manager:${ATTUNE_IMAGE_TAG:-$(hack/version.sh)}"
  else
    cat "$build/image.out"; echo "test: the image build failed"; ufail=$((ufail + 1))
  fi
fi
phase "images"

wait "$go_pid" || echo "test: the Go tools did not build in the background (the e2e suite and the chart checks try again):"
cat "$build/go-tools.out"
phase "waiting for the Go tools (built since deps)"

e2e_pid=""
if [ "$e2e_built" = 1 ]; then
  t_e2e=$(date +%s)
  E2E_SHARDS=${E2E_SHARDS:-3} E2E_REQUIRE_BUILD=1 hack/e2e.sh --k8s "${K8S:-1.36}" >"$build/e2e.out" 2>&1 &
  e2e_pid=$!
  echo "test: the e2e suite runs in the background (tail -f $build/e2e.out); its output follows the other phases"
fi

# Beside the e2e suite, at a lower priority so that its timed waits keep
# the cores they need.
if [ "$e2e_built" = 1 ]; then
  if nice -n 19 hack/build.sh "$build"; then
    phase "C++ build: the rest (beside e2e)"
    nice -n 10 meson test -C "$build" --print-errorlogs --num-processes 2 > "$build/meson-test.out" 2>&1; mrc=$?
    cat "$build/meson-test.out"
    # Count gtest cases, not suites: each suite's log ends with PASSED/FAILED counts.
    log="$build/meson-logs/testlog.txt"
    upass=$(grep -oE '^\[  PASSED  \] [0-9]+' "$log" | awk '{s+=$NF} END {print s+0}')
    ufail=$(grep -oE '^\[  FAILED  \] [0-9]+' "$log" | awk '{s+=$NF} END {print s+0}')
    upass=${upass:-0}; ufail=${ufail:-0}
    # A suite that crashed or timed out prints no gtest summary: count it as a failure.
    [ "$mrc" = 0 ] || [ "$ufail" -gt 0 ] || ufail=1
  else
    echo "test: the C++ build failed"; ufail=1
    phase "C++ build: the rest (beside e2e)"
  fi
fi
phase "unit tests (beside e2e)"
# The upgrade chain's alert rules (promtool, from Debian's prometheus): its
# rule tests (blocked fires, held is quiet, a failed chain Job fires), and the
# PrometheusRule generated from the same file. Counted as one test each.
rpass=0; rfail=0
if (cd deploy/upgrade-gate && promtool test rules alerts_test.yml); then rpass=$((rpass+1)); else rfail=$((rfail+1)); fi
if hack/upgrade-gate-rules.sh --check; then rpass=$((rpass+1)); else rfail=$((rfail+1)); fi
echo "alert rules: $rpass passed, $rfail failed"
phase "alert rules (beside e2e)"
# The tree itself: no run output, no keys (hack/check-tree.sh).
hack/check-tree.sh | tee "$build/tree.out"
rpass=$((rpass + $(grep -oE '^tree: [0-9]+ passed' "$build/tree.out" | grep -oE '[0-9]+' || echo 0)))
tfail=$(grep -oE '^tree: [0-9]+ passed, [0-9]+ failed' "$build/tree.out" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
rfail=$((rfail + ${tfail:-1}))
# The C++ style on what the last change touched (hack/check-style.sh). Shown,
# but counted only with ATTUNE_STYLE_BLOCKING=1: most of the tree is formatted
# by hand, so new code is not yet expected to match clang-format exactly.
hack/check-style.sh | tee "$build/style.out"
if [ "${ATTUNE_STYLE_BLOCKING:-}" = 1 ]; then
  rpass=$((rpass + $(grep -oE '^style: [0-9]+ passed' "$build/style.out" | grep -oE '[0-9]+' || echo 0)))
  sfail=$(grep -oE '^style: [0-9]+ passed, [0-9]+ failed' "$build/style.out" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
  rfail=$((rfail + ${sfail:-1}))
fi
# One naming convention on what the last change touched (hack/check-naming.sh,
# clang-tidy over the build's compile database). Counted.
BUILD="$build" nice -n 10 hack/check-naming.sh | tee "$build/naming.out"
rpass=$((rpass + $(grep -oE '^naming: [0-9]+ passed' "$build/naming.out" | grep -oE '[0-9]+' || echo 0)))
nfail=$(grep -oE '^naming: [0-9]+ passed, [0-9]+ failed' "$build/naming.out" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
rfail=$((rfail + ${nfail:-1}))
phase "tree, style and naming checks (beside e2e)"
# The Helm chart: lint, helm-unittest, the same install as the kustomize
# base, its alerts (promtool) and dashboard metrics (hack/chart-test.sh).
nice -n 10 hack/chart-test.sh | tee "$build/chart.out"
cpass=$(grep -oE '^chart: [0-9]+ passed' "$build/chart.out" | grep -oE '[0-9]+' | tail -1); cpass=${cpass:-0}
cfail=$(grep -oE '^chart: [0-9]+ passed, [0-9]+ failed' "$build/chart.out" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+'); cfail=${cfail:-1}
phase "chart checks and Helm tools (beside e2e)"

epass=0; efail=1
if [ -n "$e2e_pid" ]; then
  wait "$e2e_pid"
  phase "waiting for the e2e suite"
  cat "$build/e2e.out"
  epass=$(grep -oE '^e2e: [0-9]+ passed' "$build/e2e.out" | grep -oE '[0-9]+' | tail -1); epass=${epass:-0}
  efail=$(grep -oE ', [0-9]+ failed' "$build/e2e.out" | grep -oE '[0-9]+' | tail -1); efail=${efail:-1}
  e2e_line=$(printf '%-46s %5ss' "e2e suite, from its start" $(( $(date +%s) - t_e2e )))
else
  echo "test: the e2e suite did not run (the C++ build failed)"
  e2e_line=$(printf '%-46s %5s' "e2e suite" "not run")
fi
echo "phases:"
printf '  %s\n' "${phases[@]}"
printf '  %s\n' "$e2e_line"
printf '  %-46s %5ss\n' total $(( $(date +%s) - t_start ))
echo "test: $(( upass + rpass + cpass + epass )) passed, $(( ufail + rfail + cfail + efail )) failed"
[ $(( ufail + rfail + cfail + efail )) -eq 0 ]
