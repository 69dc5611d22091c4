#!/usr/bin/env bash
# Applies the ServiceAccount and RBAC of the rendered manifests
# (kustomization.yaml here) for a manager started with ARGS: the namespaced
# Roles also in the namespaces its --leader-election-namespace and
# --webhook-namespace name, and the webhook rules for the Secret and the
# MutatingWebhookConfiguration its --webhook-secret-name and
# --webhook-configuration-name name, as a user installing it there with those
# names would render them.   lane-rbac.sh [MANAGER ARGS...]
set -euo pipefail
lane=$(cd "$(dirname "$0")" && pwd)
kubectl=${KUBECTL:-kubectl}
kc=${CLUSTER_DIR:-${ATTUNE_RUN:?}/cluster}/kubeconfig
rendered=$("$kubectl" --kubeconfig "$kc" kustomize "$lane")
python3 "$lane/lane_rbac.py" "$@" <<<"$rendered" | "$kubectl" --kubeconfig "$kc" apply -f - >/dev/null
# The webhook's Secret, which the manifests ship empty for the manager to fill
# (it may only get and update it): created when missing, never reset.
created=$(python3 "$lane/lane_rbac.py" --create-only "$@" <<<"$rendered")
if [ -n "$created" ] && [ "$created" != "[]" ]; then
  out=$("$kubectl" --kubeconfig "$kc" create -f - <<<"$created" 2>&1) || grep -q AlreadyExists <<<"$out" || { echo "$out" >&2; exit 1; }
fi
