#!/usr/bin/env bash
# The fences around the upgrade chain's privileged Job, applied from
# deploy/kustomize/upgrade-gate on the real apiserver and observed with
# kubectl as the chain's own ServiceAccount (server-side dry runs: admission
# runs, nothing is stored):
#  - both Job templates of the directory are admitted;
#  - the ValidatingAdmissionPolicy denies a Job of another image, one that
#    runs another command, one with another --upgrade-command, one with a
#    hostPath volume, one with hostNetwork, and one as another ServiceAccount,
#    each with the policy's own message;
#  - the same Jobs created by a cluster admin are not judged by it (the
#    policy fences the ServiceAccount, not the cluster);
#  - Pod Security: attune-upgrade admits the privileged hostPID pod, and a
#    namespace labelled like attune-system (restricted) refuses it.
. "$(dirname "$0")/../lib.sh"
test_namespace
tmp=$(mktemp -d); at_exit "rm -rf $tmp"
dir=$REPO_ROOT/deploy/kustomize/upgrade-gate

# An earlier test's clean-up may still be deleting the namespace.
wait_until 120 sh -c "! $KUBECTL get namespace attune-upgrade >/dev/null 2>&1" || fail "attune-upgrade is still terminating"
k apply -k "$dir" >/dev/null || fail "deploy/kustomize/upgrade-gate does not apply"
at_exit "k delete -k '$dir' --wait=false >/dev/null 2>&1"
expect_eq "attune-upgrade's Pod Security" \
  "$(k get namespace attune-upgrade -o jsonpath='{.metadata.labels.pod-security\.kubernetes\.io/enforce}')" privileged
wait_until 30 k -n attune-upgrade get serviceaccount attune-upgrade-gate || fail "no ServiceAccount"
token=$(k -n attune-upgrade create token attune-upgrade-gate --duration=10m)
kubeconfig_for_token "$token" "$tmp/sa.kubeconfig" attune-upgrade
as_sa() { KUBECONFIG=$tmp/sa.kubeconfig "$KUBECTL" "$@"; }

# job NAME TEMPLATE [JQ]: the template with a name and a change.
job() { jq --arg n "$1" "${3:-.} | .metadata.name = \$n" "$dir/$2" >"$tmp/$1.json"; echo "$tmp/$1.json"; }
# try AS FILE: the server's answer to a dry-run create.
try() { local who=$1; shift; "$who" -n attune-upgrade create --dry-run=server -f "$1" 2>&1; }

# The policy takes effect once the apiserver has compiled it.
bad_image=$(job bad-image upgrade-job-template.json '.spec.template.spec.containers[0].image = "busybox:1.36"')
wait_until 30 sh -c "KUBECONFIG=$tmp/sa.kubeconfig $KUBECTL -n attune-upgrade create --dry-run=server -f $bad_image 2>&1 | grep -q attune-upgrade-gate-jobs" \
  || fail "the ValidatingAdmissionPolicy never denied a Job of another image: $(try as_sa "$bad_image")"

for t in job-template.json upgrade-job-template.json; do
  out=$(try as_sa "$(job ok-${t%%.*} "$t")") || fail "the chain's own $t was refused: $out"
done
log "both templates admitted for the chain's ServiceAccount"

declare -A denied=(
  [bad-image]='.spec.template.spec.containers[0].image = "busybox:1.36"'
  [bad-command]='.spec.template.spec.containers[0].command = ["sh", "-c", "id"]'
  [bad-upgrade-command]='(.spec.template.spec.containers[0].args[] | select(startswith("--upgrade-command"))) = "--upgrade-command=nsenter --target 1 --mount -- sh -c id"'
  [bad-hostpath]='.spec.template.spec.volumes += [{"name": "root", "hostPath": {"path": "/"}}]'
  [bad-hostnetwork]='.spec.template.spec.hostNetwork = true'
  [bad-serviceaccount]='.spec.template.spec.serviceAccountName = "default"'
)
declare -A message=(
  [bad-image]='from the kubectl-attune image only'
  [bad-command]='from the kubectl-attune image only'
  [bad-upgrade-command]='--upgrade-command is the one of upgrade-job-template.json'
  [bad-hostpath]='ConfigMaps only'
  [bad-hostnetwork]='neither the host network'
  [bad-serviceaccount]='run as attune-upgrade-gate'
)
for name in "${!denied[@]}"; do
  f=$(job "$name" upgrade-job-template.json "${denied[$name]}")
  if out=$(try as_sa "$f"); then fail "$name was admitted for the chain's ServiceAccount"; fi
  grep -q "attune-upgrade-gate-jobs" <<<"$out" || fail "$name: refused, but not by the policy: $out"
  grep -qF -- "${message[$name]}" <<<"$out" || fail "$name: the denial does not say '${message[$name]}': $out"
  # Control: the policy fences the ServiceAccount only.
  out=$(try k "$f") || fail "$name was refused for a cluster admin: $out"
done
log "${#denied[@]} Jobs off the templates denied for the ServiceAccount, each with its reason; admitted for an admin"

# Pod Security: the privileged hostPID pod of the upgrade Job.
jq '{apiVersion: "v1", kind: "Pod", metadata: {name: "psa-probe"}, spec: (.spec.template.spec | del(.serviceAccountName))}' \
  "$dir/upgrade-job-template.json" >"$tmp/pod.json"
k label namespace "$ns" pod-security.kubernetes.io/enforce=restricted --overwrite >/dev/null
out=$(k -n attune-upgrade create --dry-run=server -f "$tmp/pod.json" 2>&1) || fail "attune-upgrade refused the upgrade pod: $out"
if out=$(k -n "$ns" create --dry-run=server -f "$tmp/pod.json" 2>&1); then
  fail "a restricted namespace admitted the privileged hostPID pod"
fi
grep -q 'violates PodSecurity' <<<"$out" || fail "refused, but not by Pod Security: $out"
log "Pod Security: privileged admitted in attune-upgrade only, refused under restricted"
