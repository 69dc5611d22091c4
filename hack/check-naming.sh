#!/usr/bin/env bash
# The naming convention (docs/architecture.md, "Code style") on what a change
# touches: clang-tidy's readability-identifier-naming, with the rules of
# .clang-tidy, over the translation units of the files changed since the base
# that hack/change-base.sh picks. A changed header is checked through one
# translation unit that includes it. Only names in changed files count, so an
# old file is never asked to change because a new one includes it. A file
# clang cannot parse counts as a failure: its names would go unchecked.
# Needs the build's compile database (BUILD, default build). Run by make test;
# prints "naming: N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
build=${BUILD:-build}
. hack/change-base.sh
tidy=$(command -v clang-tidy-14 || command -v clang-tidy || true)
[ -n "$tidy" ] || { echo "naming: clang-tidy is missing (hack/deps.sh installs it)"; echo "naming: 0 passed, 1 failed"; exit 1; }
[ -f "$build/compile_commands.json" ] || { echo "naming: $build/compile_commands.json is missing (hack/build.sh $build writes it)"; echo "naming: 0 passed, 1 failed"; exit 1; }
change_base
if [ -z "$base" ]; then echo "naming: ok   no earlier commit to compare with"; echo "naming: 1 passed, 0 failed"; exit 0; fi
mapfile -t changed < <(git diff -M --name-only --diff-filter=AMR "$base" -- '*.cpp' '*.hpp' | grep -v '^test/golden/')
[ ${#changed[@]} -gt 0 ] || { echo "naming: ok   no C++ file changed since ${base:0:12}"; echo "naming: 1 passed, 0 failed"; exit 0; }
# The translation units: every changed .cpp the build compiles, and for a
# changed header one .cpp that includes it (its own first).
mapfile -t known < <(python3 -c 'import json,os,sys
for e in json.load(open(sys.argv[1])): print(os.path.relpath(os.path.join(e["directory"], e["file"])))' "$build/compile_commands.json")
declare -A in_db=() tus=()
for f in "${known[@]}"; do in_db[$f]=1; done
for f in "${changed[@]}"; do
  [ -f "$f" ] || continue
  case "$f" in
    *.cpp) if [ -n "${in_db[$f]:-}" ]; then tus[$f]=1; else echo "naming: note $f is not in the compile database (not built here): unchecked"; fi ;;
    *.hpp)
      own="${f#include/}"; stem="${f%.hpp}"; stem="${stem##*/}"
      tu=""
      for c in $(git ls-files "*/${stem}.cpp" "*/${stem}_test.cpp") $(git grep -l -F -e "<${own}>" -e "\"${own}\"" -- '*.cpp') \
               $(git grep -l -F "\"${f##*/}\"" -- "$(dirname "$f")/*.cpp"); do
        [ -n "${in_db[$c]:-}" ] && { tu=$c; break; }
      done
      if [ -n "$tu" ]; then tus[$tu]=1; else echo "naming: note no built file includes $f: unchecked"; fi ;;
  esac
done
# Names count only where they are spelled in a changed file.
filter=$(printf '%s\n' "${changed[@]}" | sed 's/[.]/[.]/g' | paste -sd'|')
out=$(mktemp); trap 'rm -f "$out" "$out.err"' EXIT
# clang-tidy exits non-zero for a file it cannot parse (reported below) and
# when it crashes: a run that says nothing is not a pass. Clang's own
# warnings stay warnings (-Wno-error): under a -Dwerror build they would
# stop the check, and the build's compiler judges them.
printf '%s\n' "${!tus[@]}" | xargs -r -P "$(nproc)" -n 4 sh -c '"$0" "$@" || echo "clang-tidy exited $? on: $*" >&2' \
  "$tidy" -p "$build" --quiet --checks='-*,readability-identifier-naming' --header-filter="/($filter)\$" \
  --extra-arg=-Wno-unknown-warning-option --extra-arg=-Wno-error > "$out" 2>"$out.err"
rc=0; grep -q '^clang-tidy exited' "$out.err" && rc=1
# Paths as clang spelled them (through the build directory): relative to the
# checkout, and only those of changed files.
clean() { sed -E "s|^$here/||; s|^([^:]*/)?\.\./||" | grep -E "^($filter):" | sort -u; }
bad=$(grep -E 'warning: .*\[readability-identifier-naming\]' "$out" | clean)
broken=$(grep -E 'error: .*\[clang-diagnostic-error\]' "$out" | sed -E "s|^$here/||; s|^([^:]*/)?\.\./||" | sort -u)
if [ "$rc" != 0 ] && [ -z "$broken" ]; then
  echo "naming: FAIL clang-tidy failed without naming a file it could not parse:"; grep -v 'warnings generated' "$out.err" | tail -8 | sed 's/^/  /'
  echo "naming: 0 passed, 1 failed"; exit 1
fi
if [ -z "$bad" ] && [ -z "$broken" ]; then
  echo "naming: ok   ${#tus[@]} translation units for ${#changed[@]} changed files follow .clang-tidy's naming (since ${base:0:12})"
  echo "naming: 1 passed, 0 failed"; exit 0
fi
if [ -n "$bad" ]; then
  echo "$bad" > "$build/naming-findings.txt"
  echo "naming: FAIL $(echo "$bad" | wc -l) names against docs/architecture.md \"Code style\" (since ${base:0:12}; all in $build/naming-findings.txt):"
  echo "$bad" | sed 's/^/  /' | head -50
fi
[ -z "$broken" ] || { echo "naming: FAIL clang cannot parse these, so their names go unchecked:"; echo "$broken" | sed 's/^/  /' | head -20; }
echo "naming: 0 passed, 1 failed"
exit 1
