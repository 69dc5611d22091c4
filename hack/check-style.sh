#!/usr/bin/env bash
# The C++ style (.clang-format) on what a change touches, not the whole tree:
# the files changed since the merge base with origin/main, or since HEAD~1
# when HEAD is that base (a fresh clone of main in CI checks its last commit,
# which for a merge is everything merged). A file that was clean before the
# change must stay clean as a whole (clang-format --dry-run -Werror); in a file
# that was not, only the changed lines are checked (git clang-format), so
# touching an old file never asks for reformatting it. Run by make test;
# prints "style: N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
command -v clang-format >/dev/null || { echo "style: clang-format is missing (hack/deps.sh installs it)"; echo "style: 0 passed, 1 failed"; exit 1; }
head=$(git rev-parse HEAD)
base=${STYLE_BASE:+$(git rev-parse -q --verify "$STYLE_BASE")}  # STYLE_BASE=main: compare with a ref of your own
[ -n "$base" ] || base=$(git merge-base HEAD origin/main 2>/dev/null || true)
if [ -z "$base" ] || [ "$base" = "$head" ]; then base=$(git rev-parse -q --verify HEAD~1 || true); fi
if [ -z "$base" ]; then echo "style: ok   no earlier commit to compare with"; echo "style: 1 passed, 0 failed"; exit 0; fi
mapfile -t files < <(git diff --name-only --diff-filter=AMR "$base" -- '*.cpp' '*.hpp' | grep -v '^test/golden/')
pass=0; fail=0; whole=(); lines=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  # Clean at the base (or new): the whole file is checked.
  if ! git cat-file -e "$base:$f" 2>/dev/null ||
     git show "$base:$f" | clang-format --style=file --assume-filename="$f" --dry-run -Werror >/dev/null 2>&1; then
    whole+=("$f")
  else
    lines+=("$f")
  fi
done
bad=()
for f in "${whole[@]}"; do
  clang-format --style=file --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#lines[@]} -gt 0 ]; then
  out=$(git clang-format --style=file --diff "$base" -- "${lines[@]}" 2>&1)
  case "$out" in
    ""|"clang-format did not modify any files"|"no modified files to format") ;;
    *) bad+=($(printf '%s\n' "$out" | sed -n 's|^+++ b/||p')) ;;
  esac
fi
if [ ${#bad[@]} -eq 0 ]; then
  pass=1; echo "style: ok   ${#whole[@]} whole files and the changed lines of ${#lines[@]} more follow .clang-format (since ${base:0:12})"
else
  fail=1; echo "style: FAIL not formatted as .clang-format says (since ${base:0:12}): ${bad[*]}"
  echo "style:      see what to change with: git clang-format --diff ${base:0:12} -- FILE (or clang-format -i FILE for a file that was clean)"
fi
echo "style: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
