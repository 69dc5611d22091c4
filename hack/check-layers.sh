#!/usr/bin/env bash
# The layers' arrows point down only (docs/architecture.md, "Layers and
# dependencies"). Two checks per folder against the table below: every
# `#include <attune/LAYER/...>` names an allowed layer, and every *_dep its
# meson.build uses is an allowed library; inside the core, the same for its
# areas. Run by meson test (the `layers`
# test) and so by hack/test.sh. Ends with `layers: N passed, N failed`.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

# folder | layers its #includes may name | *_dep it may use (project libraries only)
table=(
  "src/core|core|core"
  "include/attune/core|core|"
  "src/http|http|http"
  "include/attune/http|http|"
  "src/kube|core http kube|core http runtime"
  "include/attune/kube|core http kube|"
  "src/policy|core kube policy|core runtime policy"
  "include/attune/policy|core kube policy|"
  "src/controller|core http kube policy controller|core runtime policy controller"
  "include/attune/controller|core http kube policy controller|"
  "webhook|core http kube policy webhook|core runtime policy webhook"
  "include/attune/webhook|core http kube policy webhook|"
  "src/manager|core http kube policy controller webhook|core runtime policy controller webhook manager_support manager_catalog"
  "src/cli|core http kube policy webhook|core runtime policy webhook cli_support"
  "test/core|core|core"
  "test/runtime|core http kube|core runtime"
  "test/policy|core kube policy|core runtime policy"
  "test/webhook|core http kube policy webhook|core runtime policy webhook"
  "test/cli|core http kube policy webhook|core runtime policy webhook cli_support"
)
# Every library a *_dep may name; the rest (boost_dep, gtest_dep, ...) are third-party.
project_libs="core http runtime policy controller webhook manager_support manager_catalog cli_support"

pass=0; fail=0
for row in "${table[@]}"; do
  IFS='|' read -r dir layers deps <<<"$row"
  [ -d "$dir" ] || continue
  bad=$(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]attune/[a-z_]+/' "$dir" --include='*.hpp' --include='*.cpp' \
        | while IFS= read -r line; do
            layer=$(sed -E 's/.*[<"]attune\/([a-z_]+)\/.*/\1/' <<<"$line")
            [[ " $layers " == *" $layer "* ]] || echo "  $line"
          done)
  if [ -n "$bad" ]; then
    echo "layers: $dir includes a layer it may not (allowed: $layers):"; echo "$bad"; fail=$((fail+1))
  else
    pass=$((pass+1))
  fi
  [ -f "$dir/meson.build" ] || continue
  bad=""
  for d in $(sed 's/#.*//' "$dir/meson.build" | grep -oE '\b[a-z_]+_dep\b' | sed 's/_dep$//' | sort -u); do
    [[ " $project_libs " == *" $d "* ]] || continue
    [[ " $deps " == *" $d "* ]] || bad+=" ${d}_dep"
  done
  if [ -n "$bad" ]; then
    echo "layers: $dir/meson.build uses$bad (allowed: $deps)"; fail=$((fail+1))
  else
    pass=$((pass+1))
  fi
done

# The decision core's areas (docs/architecture.md, "The core's areas"), lowest
# first: area | the areas below it that its files (src/core/AREA,
# include/attune/core/AREA, test/core/AREA) may include.
areas=(
  "util|"
  "model|util"
  "aws|util"
  "policy|util model"
  "security|util model policy"
  "recommend|util model policy"
  "resize|util model policy recommend"
  "lifecycle|util model policy recommend resize"
  "safety|util model policy resize"
  "followups|util model policy recommend resize"
  "admission|util model policy recommend resize lifecycle"
  "upgrade|util model policy recommend"
)
known=" "; for row in "${areas[@]}"; do known+="${row%%|*} "; done
for dir in src/core/*/ include/attune/core/*/; do
  a=$(basename "$dir")
  [[ "$known" == *" $a "* ]] || { echo "layers: $dir is an area of the core that the table in hack/check-layers.sh does not place"; fail=$((fail+1)); }
done
for row in "${areas[@]}"; do
  IFS='|' read -r area below <<<"$row"
  bad=""
  for dir in "src/core/$area" "include/attune/core/$area" "test/core/$area"; do
    [ -d "$dir" ] || continue
    bad+=$(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](attune/core/|\.\./)[a-z_]+/' "$dir" --include='*.hpp' --include='*.cpp' \
          | while IFS= read -r line; do
              b=$(sed -E 's/.*[<"](attune\/core\/|\.\.\/)([a-z_]+)\/.*/\2/' <<<"$line")
              [ "$b" = "$area" ] || [[ " $below " == *" $b "* ]] || echo "  $line"
            done)
  done
  if [ -n "$bad" ]; then
    echo "layers: core area $area includes an area above or beside it (allowed: ${below:-none}):"; echo "$bad"; fail=$((fail+1))
  else
    pass=$((pass+1))
  fi
done
echo "layers: $pass passed, $fail failed"
[ "$fail" = 0 ]
