#!/usr/bin/env bash
# Applies the ServiceAccount and RBAC of the rendered manifests
# (kustomization.yaml here) for a manager started with ARGS: the namespaced
# Roles also in the namespaces its --leader-election-namespace and
# --webhook-namespace name, and the webhook rules for the Secret and the
# MutatingWebhookConfiguration its --webhook-secret-name and
# --webhook-configuration-name name, as a user installing it there with those
# names would render them.   lane-rbac.sh [MANAGER ARGS...]
#   ATTUNE_LANE_COMPONENTS=c[,c]  more components of deploy/kustomize/components
#       (by directory name, e.g. without-eviction) on top of kustomization.yaml.
#       The RBAC objects they take out of the render are deleted from the
#       cluster, so a grant an earlier start applied is really gone.
#   ATTUNE_LANE_RBAC_DROP=res[,res]  resources taken out of every rule of every
#       role (lane_rbac.py); a role left with no rule is applied with rules: [].
set -euo pipefail
lane=$(cd "$(dirname "$0")" && pwd)
components=$(cd "$lane/../../deploy/kustomize/components" && pwd)
kubectl=${KUBECTL:-kubectl}
kc=${CLUSTER_DIR:-${ATTUNE_RUN:?}/cluster}/kubeconfig
rendered=$("$kubectl" --kubeconfig "$kc" kustomize "$lane")
full=""
if [ -n "${ATTUNE_LANE_COMPONENTS:-}" ]; then
  # kustomize takes components by relative path only, so the overlay is a
  # kustomization.yaml in a scratch directory (the run directory, git-ignored,
  # else TMPDIR) naming this one and the components relative to itself.
  tmp=$(mktemp -d "${ATTUNE_RUN:-${TMPDIR:-/tmp}}/lane-rbac.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  {
    printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n'
    printf 'resources:\n- %s\ncomponents:\n' "$(realpath --relative-to="$tmp" "$lane")"
    IFS=, read -ra names <<<"$ATTUNE_LANE_COMPONENTS"
    for c in "${names[@]}"; do
      [ -n "$c" ] || continue
      [[ "$c" != */* && -f "$components/$c/kustomization.yaml" ]] \
        || { echo "lane-rbac: ATTUNE_LANE_COMPONENTS: no component $c in deploy/kustomize/components" >&2; exit 2; }
      printf -- '- %s\n' "$(realpath --relative-to="$tmp" "$components/$c")"
    done
  } >"$tmp/kustomization.yaml"
  full=$rendered
  rendered=$("$kubectl" --kubeconfig "$kc" kustomize "$tmp")
fi
python3 "$lane/lane_rbac.py" "$@" <<<"$rendered" | "$kubectl" --kubeconfig "$kc" apply -f - >/dev/null
if [ -n "$full" ]; then
  printf '%s\n' "$full" >"$tmp/full.yaml"
  gone=$(python3 "$lane/lane_rbac.py" --removed "$tmp/full.yaml" "$@" <<<"$rendered")
  if [ -n "$gone" ] && [ "$gone" != "[]" ]; then
    "$kubectl" --kubeconfig "$kc" delete --ignore-not-found --wait=false -f - <<<"$gone" >/dev/null
  fi
fi
# The webhook's Secret, which the manifests ship empty for the manager to fill
# (it may only get and update it): created when missing, never reset.
created=$(python3 "$lane/lane_rbac.py" --create-only "$@" <<<"$rendered")
if [ -n "$created" ] && [ "$created" != "[]" ]; then
  out=$("$kubectl" --kubeconfig "$kc" create -f - <<<"$created" 2>&1) || grep -q AlreadyExists <<<"$out" || { echo "$out" >&2; exit 1; }
fi
