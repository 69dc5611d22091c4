#!/usr/bin/env bash
# updateStrategy.export.pullRequest (docs/api.md#gitops-pull-requests) against
# a loopback fake forge (e2e/testproxy/fake_forge.py, a harness: HTTPS with a
# throwaway CA, GitHub's and GitLab's REST calls over in-memory
# repositories), observed with kubectl and the fake's own record:
#  - GitHub: the branch attune/recommendations-<ns>-<policy> from main, one
#    commit that edits the workload's manifest at the policy's
#    attune.io/gitops-pr-path (the new requests written, the file's other
#    document and fields kept), the pull request into main with the drift
#    table in its body and the labels; every call carried the token as
#    "Authorization: Bearer"; GitOpsPullRequest=True PullRequestOpen, the
#    annotations attune.io/gitops-pr-url / -last-attempt, status.gitopsPR,
#    a PullRequestOpen Event, attune_gitops_pr_total{result="created"};
#  - GitLab: the branch, a commit creating the file kubectl attune export
#    would write (no file in the repository), the merge request with its
#    labels, the token as PRIVATE-TOKEN;
#  - a new drift within the cooldown: PullRequestCooldown, no call;
#  - recommendations equal to the template: NoDrift, no call;
#  - dryRun: PullRequestDryRun naming the repository and branch, no call at all;
#  - a forge answering 500: PullRequestFailed naming the call, a Warning Event;
#  - the token is in no log line, Event or status.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
require_local "the harness's fake forge on loopback"
require_manager
apply_policy_crd
test_namespace
# Image lane: the secret-reads Role pair is granted in this namespace (never cluster-wide).
export ATTUNE_LANE_SECRET_NAMESPACES=$ns

dir=$(mktemp -d); at_exit "rm -rf $dir"
harness_tls "$dir" "e2e-75 fake forge CA"

# The repository's manifest of web: the Deployment and a Service in one file.
cat >"$dir/web.yaml" <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: $ns
  labels: {tier: web, team: shop}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: registry.example/web:1.2.3
        resources:
          requests: {cpu: 500m, memory: 256Mi}
          limits: {cpu: "1", memory: 512Mi}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: $ns}
spec:
  selector: {app: web}
  ports: [{port: 80}]
YAML
token=e2e-75-token-$RANDOM$RANDOM
requests=$dir/requests.jsonl; : >"$requests"
python3 "$REPO_ROOT/e2e/testproxy/fake_forge.py" --cert "$dir/tls.crt" --key "$dir/tls.key" --token "$token" \
  --log "$requests" --file "org/manifests:apps/$ns/web.yaml=$dir/web.yaml" --fail "org/broken=500" \
  >"$dir/fake.out" 2>&1 &
fake_pid=$!
at_exit "kill $fake_pid 2>/dev/null"
wait_until 10 grep -q '^port ' "$dir/fake.out" || fail "HARNESS: fake_forge did not start: $(cat "$dir/fake.out")"
port=$(awk '/^port / { print $2 }' "$dir/fake.out")
forge() { curl -fsS --cacert "$dir/ca.crt" "https://127.0.0.1:$port$1"; }
forge /_state >/dev/null || fail "HARNESS: the fake does not answer over TLS"
: >"$requests"
state() { forge /_state; }
calls_for() { jq -c --arg r "$1" 'select(.path | contains($r))' "$requests"; }

k -n "$ns" create secret generic forge-token --from-literal=token="$token" >/dev/null
for w in web api db quiet flaky; do web_deployment "$w" 1; done
down='[{"name":"app","resources":{"requests":{"cpu":"200m","memory":"128Mi"}}}]'
same='[{"name":"app","resources":{"requests":{"cpu":"500m","memory":"256Mi"}}}]'
pr() {  # pr PROVIDER REPOSITORY API-PATH [EXTRA-JSON]: updateStrategy extra for manual_policy
  local extra=${4:-'{}'}
  jq -cn --arg p "$1" --arg r "$2" --arg u "https://127.0.0.1:$port$3" --argjson x "$extra" \
    '{export: {pullRequest: ({enabled: true, provider: $p, repository: $r, apiUrl: $u, cooldown: "1h",
      tokenSecretRef: {name: "forge-token", key: "token"}} + $x)}}'
}
manual_policy gh web Recommend "$down" "$(pr github org/manifests /github '{"labels":["attune","rightsizing"]}')"
k -n "$ns" annotate attunepolicy gh 'attune.io/gitops-pr-path=apps/{namespace}/{name}.yaml' >/dev/null
manual_policy gl api Recommend "$down" "$(pr gitlab group/manifests /gitlab/api/v4 '{"labels":["attune"]}')"
manual_policy still db Recommend "$same" "$(pr github org/still /github)"
manual_policy dry quiet Recommend "$down" "$(pr github org/dry /github '{"dryRun":true}')"
manual_policy broken flaky Recommend "$down" "$(pr github org/broken /github)"

start_manager --allow-local-metrics-addresses --allow-secret-reads --gitops-ca-file "$dir/ca.crt"
pr_condition() { condition_of "$1" GitOpsPullRequest; }
pr_message() {
  k -n "$ns" get attunepolicy "$1" -o json | jq -r '[(.status.conditions // [])[] | select(.type == "GitOpsPullRequest")][0].message'
}
for want in "gh:True PullRequestOpen" "gl:True PullRequestOpen" "still:False NoDrift" "dry:True PullRequestDryRun" \
  "broken:False PullRequestFailed"; do
  p=${want%%:*}
  wait_eq 90 "${want#*:}" pr_condition "$p" \
    || fail "policy $p: GitOpsPullRequest '$(pr_condition "$p")' ($(pr_message "$p")), want '${want#*:}'; $(grep -i 'pull request' "$MGR_LOG" | tail -3)"
  log "$p: $(pr_condition "$p"): $(pr_message "$p")"
done

# 1. GitHub: what the forge received.
branch="attune/recommendations-$ns-gh"
st=$(state)
gh_pull=$(jq -c '.["org/manifests"].pulls[0]' <<<"$st")
log "github pull request: $(jq -c '{number, head, base, labels, title}' <<<"$gh_pull")"
expect_eq "head" "$(jq -r .head.ref <<<"$gh_pull")" "$branch"
expect_eq "base" "$(jq -r .base.ref <<<"$gh_pull")" main
expect_eq "labels" "$(jq -c '[.labels[].name]' <<<"$gh_pull")" '["attune","rightsizing"]'
expect_eq "title" "$(jq -r .title <<<"$gh_pull")" "chore(attune): apply recommendations for $ns/gh"
jq -r .body <<<"$gh_pull" | grep -qF "| web | Deployment | app | cpu | 500m | 200m | 60.0% |" \
  || fail "the body lacks the cpu drift row: $(jq -r .body <<<"$gh_pull")"
jq -r .body <<<"$gh_pull" | grep -qF "| web | Deployment | app | memory | 256Mi | 128Mi | 50.0% |" \
  || fail "the body lacks the memory drift row"
jq -r .body <<<"$gh_pull" | grep -qF "apps/$ns/web.yaml" || fail "the body does not name the file"
expect_eq "the commits" "$(jq -c '[.["org/manifests"].commits[] | {branch, files}]' <<<"$st")" \
  "[{\"branch\":\"$branch\",\"files\":[\"apps/$ns/web.yaml\"]}]"
jq -j --arg f "apps/$ns/web.yaml" '.["org/manifests"].branches.main[$f]' <<<"$st" | cmp -s - "$dir/web.yaml" \
  || fail "main changed: the commit went to the base branch"
jq -r --arg b "$branch" --arg f "apps/$ns/web.yaml" '.["org/manifests"].branches[$b][$f]' <<<"$st" >"$dir/web.new.yaml"
python3 - "$dir/web.new.yaml" <<'PY' || fail "the committed manifest: $(cat "$dir/web.new.yaml")"
import sys, yaml
docs = list(yaml.safe_load_all(open(sys.argv[1])))
assert [d["kind"] for d in docs] == ["Deployment", "Service"], docs
c = docs[0]["spec"]["template"]["spec"]["containers"][0]
assert c["resources"]["requests"] == {"cpu": "200m", "memory": "128Mi"}, c
assert c["image"] == "registry.example/web:1.2.3", c
assert docs[0]["metadata"]["labels"] == {"tier": "web", "team": "shop"}, docs[0]["metadata"]
assert docs[1]["spec"]["ports"] == [{"port": 80}], docs[1]
PY
log "github: branch $branch, the file's requests 200m/128Mi, the Service kept"
expect_eq "every GitHub call carried the token" \
  "$(calls_for /github/repos/org/manifests | jq -r '.headers.Authorization' | sort -u | tr '\n' ' ')" "match "
expect_eq "the GitHub calls" "$(calls_for /github/repos/org/manifests | jq -r '"\(.method) \(.path)"' | sed "s|$ns|NS|g" | tr '\n' ';')" \
  "GET /github/repos/org/manifests/pulls;GET /github/repos/org/manifests/git/ref/heads/attune/recommendations-NS-gh;GET /github/repos/org/manifests/git/ref/heads/main;POST /github/repos/org/manifests/git/refs;GET /github/repos/org/manifests/contents/apps/NS/web.yaml;PUT /github/repos/org/manifests/contents/apps/NS/web.yaml;POST /github/repos/org/manifests/pulls;POST /github/repos/org/manifests/issues/1/labels;"
url=$(jq -r .html_url <<<"$gh_pull")
gh_json=$(k -n "$ns" get attunepolicy gh -o json)
expect_eq "annotation gitops-pr-url" "$(jq -r '.metadata.annotations["attune.io/gitops-pr-url"]' <<<"$gh_json")" "$url"
jq -e '.metadata.annotations["attune.io/gitops-pr-last-attempt"] | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$")' <<<"$gh_json" >/dev/null \
  || fail "no RFC 3339 last-attempt annotation: $(jq -c .metadata.annotations <<<"$gh_json")"
expect_eq "status.gitopsPR.url" "$(jq -r .status.gitopsPR.url <<<"$gh_json")" "$url"
jq -e '.status.gitopsPR.driftFingerprint | test("^[0-9a-f]{16}$")' <<<"$gh_json" >/dev/null \
  || fail "status.gitopsPR: $(jq -c .status.gitopsPR <<<"$gh_json")"
pr_message gh | grep -qF "$url" || fail "the condition does not name the pull request: $(pr_message gh)"
wait_until 30 has_events gh PullRequestOpen || fail "no PullRequestOpen Event: $(event_reasons gh)"
expect_eq "attune_gitops_pr_total created" "$(metric_sum attune_gitops_pr_total "policy=\"gh\".*result=\"created\"")" 1

# 2. GitLab: a new file, one commit, the merge request.
gl_branch="attune/recommendations-$ns-gl"
gl_file="${ns}_deployment_api.yaml"
mr=$(jq -c '.["group/manifests"].pulls[0]' <<<"$st")
log "gitlab merge request: $(jq -c '{iid, source_branch, target_branch, labels}' <<<"$mr")"
expect_eq "source branch" "$(jq -r .source_branch <<<"$mr")" "$gl_branch"
expect_eq "target branch" "$(jq -r .target_branch <<<"$mr")" main
expect_eq "labels" "$(jq -c .labels <<<"$mr")" '["attune"]'
jq -r .description <<<"$mr" | grep -qF "| api | Deployment | app | cpu | 500m | 200m | 60.0% |" \
  || fail "the description lacks the drift row: $(jq -r .description <<<"$mr")"
expect_eq "the GitLab commit" "$(jq -c '[.["group/manifests"].commits[] | {branch, files}]' <<<"$st")" \
  "[{\"branch\":\"$gl_branch\",\"files\":[\"$gl_file\"]}]"
jq -r --arg b "$gl_branch" --arg f "$gl_file" '.["group/manifests"].branches[$b][$f]' <<<"$st" >"$dir/api.yaml"
python3 - "$dir/api.yaml" "$ns" <<'PY' || fail "the created manifest: $(cat "$dir/api.yaml")"
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert d["kind"] == "Deployment" and d["metadata"]["name"] == "api" and d["metadata"]["namespace"] == sys.argv[2], d
assert "status" not in d and "managedFields" not in d["metadata"] and "resourceVersion" not in d["metadata"], d
c = d["spec"]["template"]["spec"]["containers"][0]
assert c["resources"]["requests"] == {"cpu": "200m", "memory": "128Mi"}, c
PY
expect_eq "every GitLab call carried the token" \
  "$(calls_for /gitlab/api/v4/projects/group | jq -r '.headers["Private-Token"] // .headers["PRIVATE-TOKEN"]' | sort -u | tr '\n' ' ')" "match "
pr_message gl | grep -qF "$(jq -r .web_url <<<"$mr")" || fail "gl's condition: $(pr_message gl)"
log "gitlab: $gl_file created on $gl_branch, merge request $(jq -r .web_url <<<"$mr")"

# 3. NoDrift and dryRun: no call for their repositories at all.
expect_eq "calls for org/still" "$(calls_for org/still | wc -l)" 0
expect_eq "calls for org/dry" "$(calls_for org/dry | wc -l)" 0
pr_message dry | grep -qF "org/dry from attune/recommendations-$ns-dry into main" || fail "dry run message: $(pr_message dry)"
expect_eq "attune_gitops_pr_total dry_run" "$(metric_sum attune_gitops_pr_total "policy=\"dry\".*result=\"dry_run\"")" 1

# 4. The forge's 500: PullRequestFailed naming the call, and a Warning Event.
pr_message broken | grep -qF "list the open pull requests (GET /repos/org/broken/pulls) answered 500" \
  || fail "broken's message: $(pr_message broken)"
wait_until 30 has_events broken PullRequestFailed || fail "no PullRequestFailed Event: $(event_reasons broken)"
expect_eq "attune_gitops_pr_total failed" "$(metric_sum attune_gitops_pr_total "policy=\"broken\".*result=\"failed\"")" 1

# 5. A new drift within the cooldown: the template moves (400m), nothing is sent.
before=$(calls_for /github/repos/org/manifests | wc -l)
k -n "$ns" patch deployment web --type json \
  -p '[{"op":"replace","path":"/spec/template/spec/containers/0/resources/requests/cpu","value":"400m"}]' >/dev/null
wait_eq 90 "False PullRequestCooldown" pr_condition gh || fail "gh after the template moved: $(pr_condition gh) ($(pr_message gh))"
log "gh: $(pr_message gh)"
sleep 3
expect_eq "calls during the cooldown" "$(calls_for /github/repos/org/manifests | wc -l)" "$before"
expect_eq "status.gitopsPR.url kept" "$(k -n "$ns" get attunepolicy gh -o jsonpath='{.status.gitopsPR.url}')" "$url"

# 6. The token went nowhere but the forge's token headers.
grep -qF "$token" "$MGR_LOG" && fail "the token is in the manager's log"
k -n "$ns" get attunepolicies,events.events.k8s.io -o json | grep -qF "$token" && fail "the token is in a policy or an Event"
grep -F "$token" "$requests" >/dev/null && fail "HARNESS: the fake logged the token"
true
