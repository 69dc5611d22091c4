#!/usr/bin/env bash
# The C++ style (.clang-format) on what a change touches, not the whole tree:
# the files changed since the base that hack/change-base.sh picks. A file that
# was clean before the change must stay clean as a whole (clang-format --dry-run -Werror); in a file
# that was not, only the changed lines are checked (clang-format --lines), so
# touching or moving an old file never asks for reformatting it. Run by make test;
# prints "style: N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
command -v clang-format >/dev/null || { echo "style: clang-format is missing (hack/deps.sh installs it)"; echo "style: 0 passed, 1 failed"; exit 1; }
. hack/change-base.sh  # STYLE_BASE=main: compare with a ref of your own
change_base
if [ -z "$base" ]; then echo "style: ok   no earlier commit to compare with"; echo "style: 1 passed, 0 failed"; exit 0; fi
# A renamed file is compared with its old path, so moving a file never asks
# for reformatting it.
declare -A was=()
while IFS=$'\t' read -r st a b; do
  case "$st" in R*) was[$b]=$a ;; *) was[$a]=$a ;; esac
done < <(git diff -M --name-status --diff-filter=AMR "$base" -- '*.cpp' '*.hpp' | grep -v $'\ttest/golden/')
pass=0; fail=0; whole=(); lines=()
for f in "${!was[@]}"; do
  [ -f "$f" ] || continue
  # Clean at the base (or new): the whole file is checked.
  if ! git cat-file -e "$base:${was[$f]}" 2>/dev/null ||
     git show "$base:${was[$f]}" | clang-format --style=file --assume-filename="$f" --dry-run -Werror >/dev/null 2>&1; then
    whole+=("$f")
  else
    lines+=("$f")
  fi
done
bad=()
for f in "${whole[@]}"; do
  clang-format --style=file --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
# In a file that was not clean, only the lines the change wrote.
for f in "${lines[@]}"; do
  mapfile -t ranges < <(git diff -U0 -M "$base" -- "${was[$f]}" "$f" |
    sed -n 's/^@@ -[0-9,]* +\([0-9]*\)\(,\([0-9]*\)\)\{0,1\} @@.*/\1 \3/p' |
    awk '{ n = ($2 == "") ? 1 : $2; if (n > 0) printf "--lines=%d:%d\n", $1, $1 + n - 1 }')
  [ ${#ranges[@]} -gt 0 ] || continue
  clang-format --style=file "${ranges[@]}" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -eq 0 ]; then
  pass=1; echo "style: ok   ${#whole[@]} whole files and the changed lines of ${#lines[@]} more follow .clang-format (since ${base:0:12})"
else
  fail=1; echo "style: FAIL not formatted as .clang-format says (since ${base:0:12}): ${bad[*]}"
  echo "style:      see what to change with: git clang-format --diff ${base:0:12} -- FILE (or clang-format -i FILE for a file that was clean)"
fi
echo "style: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
