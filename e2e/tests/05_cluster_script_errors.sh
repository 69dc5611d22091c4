#!/usr/bin/env bash
# hack/cluster.sh fails clearly on bad input and leaves no stray processes.
. "$(dirname "$0")/../lib.sh"
require_local
cs="$REPO_ROOT/hack/cluster.sh"
tmp=$(mktemp -d); at_exit "rm -rf $tmp"

out=$(ATTUNE_RUN="$tmp/a" "$cs" up --k8s 1.99 2>&1) && fail "unknown minor accepted"
grep -q "unknown Kubernetes minor '1.99'" <<<"$out" || fail "unclear unknown-minor error: $out"

# The running cluster holds the default ports.
out=$(ATTUNE_RUN="$tmp/b" "$cs" up --k8s "$K8S_MINOR" 2>&1) && fail "started over a port in use"
grep -q "already in use" <<<"$out" || fail "unclear port-in-use error: $out"

# No Go toolchain and nothing cached: say so instead of failing obscurely.
out=$(ATTUNE_CACHE="$tmp/empty-cache" PATH=/usr/bin:/bin "$REPO_ROOT/hack/controlplane-build.sh" "$K8S_MINOR" 2>&1) && fail "built without Go"
grep -q "no Go toolchain" <<<"$out" || fail "unclear missing-Go error: $out"

# A component that never becomes ready: its log tail is printed and whatever
# had started is stopped again.
out=$(ATTUNE_RUN="$tmp/c" ATTUNE_PORT_BASE=$(extra_port_base 2000) "$cs" up --k8s "$K8S_MINOR" --no-prometheus \
      --feature-gates NoSuchFeatureGate=true 2>&1) && fail "bad feature gate accepted"
grep -q "kube-apiserver exited before it became ready" <<<"$out" || fail "no clear readiness error: $out"
grep -q "last lines of" <<<"$out" || fail "no log tail printed"
sleep 1
if pgrep -f "$tmp/c" >/dev/null; then pgrep -af "$tmp/c" >&2; fail "stray processes left behind"; fi
