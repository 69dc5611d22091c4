#!/usr/bin/env bash
# Refuses what never belongs in the tree: a tracked file over 2 MB that
# hack/large-fixtures.txt does not list, a private key anywhere (test keys
# are generated at run time; fixtures that need one live under test/data and
# are listed there too), a citation a reader cannot open, and a reference to
# a docs/ page or section that does not exist. Run by make test; prints "tree: N passed, N failed".
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
# Every citation is one a reader of the repository can open: docs/*.md (and
# a #section of it that exists), a KEP, upstream source at a tag. Never an
# issue or PR number, a seed, a section number of a document the repository
# does not hold, or a path outside it.
cites=$(git grep -nIE -- "$(cat <<'RE'
\b[Ss]eeds? ?[0-9]{3}\b|\b[Tt]he seeds?('s)?\b|\b[Ii]ssues? ?#?[0-9]+\b|(^|[ (,])#[0-9]+\b|§ ?[0-9]|attune-api\.md|kubernetes-facts\.md|contracts\.md|\.\./shared\b|\bshared/docs/
RE
)" -- . ':!hack/check-tree.sh' 2>/dev/null)
if [ -z "$cites" ]; then pass=$((pass+1)); echo "tree: ok   no citation of an issue, a seed or a document outside the repository"
else fail=$((fail+1)); echo "tree: FAIL citations a reader cannot open (cite docs/*.md, a KEP or upstream source at a tag):"
     printf '%s\n' "$cites" | cut -c1-200 | sed 's/^/  /'; fi
# docs/NAME.md and docs/NAME.md#section, wherever cited, exist.
broken=$(git grep -nIoE -- 'docs/[a-z0-9_-]+\.md(#[a-z0-9_-]+)?' -- . ':!hack/check-tree.sh' 2>/dev/null | python3 -c '
import re, sys, os
def slug(h):
    h = re.sub(r"[^\w\- ]", "", h.strip().lower())
    return h.replace(" ", "-")
anchors = {}
for line in sys.stdin.read().splitlines():
    where, ref = line.rsplit(":", 1)
    doc, _, sec = ref.partition("#")
    if not os.path.isfile(doc):
        print(f"{where}: {ref} (no such file)"); continue
    if not sec: continue
    if doc not in anchors:
        text = open(doc, errors="replace").read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        anchors[doc] = {slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, flags=re.M)}
    if sec not in anchors[doc]:
        print(f"{where}: {ref} (no such section)")
')
if [ -z "$broken" ]; then pass=$((pass+1)); echo "tree: ok   every docs/*.md reference (and #section) exists"
else fail=$((fail+1)); echo "tree: FAIL references to docs that do not exist:"; printf '%s\n' "$broken" | sed 's/^/  /'; fi
echo "tree: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
