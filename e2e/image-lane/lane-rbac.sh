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
"$kubectl" --kubeconfig "$kc" kustomize "$lane" | python3 "$lane/lane_rbac.py" "$@" |
  "$kubectl" --kubeconfig "$kc" apply -f - >/dev/null
