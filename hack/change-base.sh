# Sourced by the checks that look only at what a change touches
# (hack/check-style.sh, hack/check-naming.sh). Sets `base` to the commit the
# change is compared with: $STYLE_BASE when given, else the merge base with
# origin/main, else HEAD~1 when HEAD is that base (a fresh clone of main in CI
# checks its last commit, which for a merge is everything merged). Empty when
# there is no earlier commit.
change_base() {
  local head
  head=$(git rev-parse HEAD)
  base=${STYLE_BASE:+$(git rev-parse -q --verify "$STYLE_BASE")}
  [ -n "$base" ] || base=$(git merge-base HEAD origin/main 2>/dev/null || true)
  if [ -z "$base" ] || [ "$base" = "$head" ]; then base=$(git rev-parse -q --verify HEAD~1 || true); fi
}
