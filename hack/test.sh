#!/usr/bin/env bash
# `make test`: unit tests, then the e2e suite on the newest stable minor.
# Ends with one line `test: N passed, N failed` (meson suites + e2e tests).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
build=${BUILD:-build}
upass=0; ufail=0
if hack/build.sh "$build"; then
  meson test -C "$build" --print-errorlogs --num-processes 2 > "$build/meson-test.out" 2>&1; mrc=$?
  cat "$build/meson-test.out"
  upass=$(grep -oE '^Ok: +[0-9]+' "$build/meson-test.out" | grep -oE '[0-9]+' || echo 0)
  ufail=$(grep -oE '^Fail: +[0-9]+' "$build/meson-test.out" | grep -oE '[0-9]+' || echo 0)
  [ "$mrc" = 0 ] || [ "$ufail" -gt 0 ] || ufail=1
else
  echo "test: the C++ build failed"; ufail=1
fi
hack/e2e.sh --k8s "${K8S:-1.36}" | tee "$build/e2e.out"
epass=$(grep -oE '^e2e: [0-9]+ passed' "$build/e2e.out" | grep -oE '[0-9]+' | tail -1); epass=${epass:-0}
efail=$(grep -oE ', [0-9]+ failed' "$build/e2e.out" | grep -oE '[0-9]+' | tail -1); efail=${efail:-1}
echo "test: $(( upass + epass )) passed, $(( ufail + efail )) failed"
[ $(( ufail + efail )) -eq 0 ]
