#!/usr/bin/env bash
# The cluster came up with the minor we asked for, and /version is stamped.
. "$(dirname "$0")/../lib.sh"
got=$(k version -o json | jq -r .serverVersion.gitVersion)
expect_eq "server /version gitVersion" "$got" "$K8S_VERSION"
minor=$(k version -o json | jq -r .serverVersion.minor)
expect_eq "server /version minor" "$minor" "${K8S_MINOR#1.}"
expect_eq "kubectl client version" "$(k version --client -o json | jq -r .clientVersion.gitVersion)" "$K8S_VERSION"
nodes=$(k get nodes -o name | wc -l)
[ "$nodes" -ge 1 ] || fail "no nodes"
