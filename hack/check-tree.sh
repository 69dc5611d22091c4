#!/usr/bin/env bash
# Refuses what never belongs in the tree: a tracked file over 2 MB that
# hack/large-fixtures.txt does not list, and a private key anywhere (test keys
# are generated at run time; fixtures that need one live under test/data and
# are listed there too). Run by make test; prints "tree: N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
allow=hack/large-fixtures.txt
pass=0; fail=0
listed() { [ -f "$allow" ] && grep -qxF "$1" <(grep -v '^#' "$allow"); }
big=()
while IFS= read -r -d '' f; do
  [ -f "$f" ] || continue
  size=$(stat -c %s "$f")
  if [ "$size" -gt 2000000 ] && ! listed "$f"; then big+=("$f ($size bytes)"); fi
done < <(git ls-files -z)
if [ ${#big[@]} -eq 0 ]; then pass=$((pass+1)); echo "tree: ok   no tracked file over 2 MB outside $allow"
else fail=$((fail+1)); echo "tree: FAIL tracked files over 2 MB: ${big[*]}"; fi
keys=()
while IFS= read -r f; do
  case "$f" in test/data/*) listed "$f" && continue ;; esac
  keys+=("$f")
done < <(git grep -lE -- '-----BEGIN ([A-Z]+ )?PRIVATE KEY-----' -- . ':!hack/check-tree.sh' 2>/dev/null |
         python3 -c '
import re, sys
# A key, not a marker: a BEGIN line followed by at least 64 characters of
# base64 (PEM lines, or "\n"-escaped ones in a string) before its END line.
pem = re.compile(r"-----BEGIN ([A-Z]+ )?PRIVATE KEY-----((?:[A-Za-z0-9+/=]|\s|\\n)+)-----END")
for path in sys.stdin.read().split("\n"):
    if not path:
        continue
    text = open(path, errors="replace").read()
    if any(len(re.sub(r"[^A-Za-z0-9+/=]|\\n", "", m.group(2))) >= 64 for m in pem.finditer(text)):
        print(path)
')
if [ ${#keys[@]} -eq 0 ]; then pass=$((pass+1)); echo "tree: ok   no private key in the tree"
else fail=$((fail+1)); echo "tree: FAIL private keys in the tree: ${keys[*]}"; fi
echo "tree: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
