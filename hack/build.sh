#!/usr/bin/env bash
# Configures (once) and builds the C++ tree. CI=true turns warnings into errors.
#   hack/build.sh [DIR] [meson options...]
# TARGETS="a b" builds only those ninja targets (and what they need), e.g. the
# binaries the e2e suite runs; hack/test.sh builds the rest while it runs.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}; shift || true
cd "$here"
# meson picks ccache up by itself. Paths under the checkout are hashed relative
# to it, so another clone or worktree of the same code hits the same cache.
export CCACHE_BASEDIR="$here" CCACHE_NOHASHDIR=1
werror=false; [ "${CI:-}" = true ] && werror=true
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" -Dwerror=$werror "$@" >/dev/null
elif [ $# -gt 0 ]; then
  meson configure "$build" "$@" >/dev/null
fi
# shellcheck disable=SC2086  # TARGETS is a list of ninja targets
ninja -C "$build" -j "$(nproc)" ${TARGETS:-}
