#!/usr/bin/env bash
# The secure /metrics (--metrics-secure, the default): TLS, and every request
# authenticated with a TokenReview and authorised with a SubjectAccessReview
# (get on the non-resource URL /metrics), as kubebuilder's secure metrics do.
# Observed with curl and kubectl, tokens minted by kubectl create token:
#  - plain HTTP to the metrics port gets no metrics;
#  - no token, or a token the apiserver does not know: 401 with
#    WWW-Authenticate: Bearer;
#  - a ServiceAccount with no RBAC for /metrics: 403;
#  - one bound to the attune-metrics-reader ClusterRole of deploy/: 200 with
#    the manager's metrics;
#  - /healthz and /readyz need no token;
#  - decisions are cached: ten more scrapes cost the apiserver no TokenReview
#    (its own apiserver_request_total);
#  - --metrics-cert-dir: the mounted certificate is the one served (curl
#    verifies it against its CA, no -k);
#  - image lane only: without the ClusterRole's tokenreviews rule the scrape
#    gets 503 (never 200), and the manager's log names the apiserver's 403;
#  - control: with --metrics-secure=false the same port answers plain HTTP
#    without a token (what every other manager test uses).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
require_local "the apiserver's own metrics"
require_manager
apply_policy_crd
test_namespace

# The reader ClusterRole as deploy/ ships it.
k kustomize "$REPO_ROOT/deploy/kustomize/base" | python3 -c '
import sys, yaml
for d in yaml.safe_load_all(sys.stdin):
    if d and d["kind"] == "ClusterRole" and d["metadata"]["name"] == "attune-metrics-reader":
        print(yaml.safe_dump(d)); break
else:
    sys.exit("deploy/kustomize/base has no ClusterRole attune-metrics-reader")' >"$ATTUNE_RUN/metrics-reader-$ns.yaml" \
  || fail "no attune-metrics-reader ClusterRole in deploy/kustomize/base"
k apply -f "$ATTUNE_RUN/metrics-reader-$ns.yaml" >/dev/null
k create serviceaccount reader -n "$ns" >/dev/null
k create serviceaccount outsider -n "$ns" >/dev/null
k create clusterrolebinding "$ns-metrics-reader" --clusterrole=attune-metrics-reader \
  --serviceaccount="$ns:reader" >/dev/null
at_exit "k delete clusterrolebinding $ns-metrics-reader >/dev/null 2>&1"
reader=$(k create token reader -n "$ns" --duration 10m)
outsider=$(k create token outsider -n "$ns" --duration 10m)

secure_ready() { curl -ksf --max-time 2 "https://127.0.0.1:$MGR_PORT/readyz" >/dev/null; }
# status PATH [TOKEN]: the HTTP status of a GET over TLS (certificate not checked).
status() {
  local auth=()
  [ -n "${2:-}" ] && auth=(-H "Authorization: Bearer $2")
  curl -ks --max-time 10 -o /dev/null -w '%{http_code}' "${auth[@]}" "https://127.0.0.1:$MGR_PORT$1"
}
token_reviews() {
  k get --raw /metrics | awk '/^apiserver_request_total\{/ && /resource="tokenreviews"/ { n += $NF } END { print n + 0 }'
}

launch_manager --metrics-secure=true
wait_until 60 secure_ready || { tail -30 "$MGR_LOG" >&2; fail "the secure manager never became ready"; }
grep -q 'scheme=https' "$MGR_LOG" || fail "the manager did not say it serves https"

code=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MGR_PORT/metrics" || true)
[ "$code" != 200 ] || fail "plain HTTP to the secure port answered 200"
log "plain http to the secure port: $code (no metrics)"

expect_eq "no token" "$(status /metrics)" 401
curl -ks --max-time 10 -D - -o /dev/null "https://127.0.0.1:$MGR_PORT/metrics" | grep -qi '^www-authenticate: Bearer' \
  || fail "401 without WWW-Authenticate: Bearer"
expect_eq "an unknown token" "$(status /metrics not-a-real-token)" 401
expect_eq "a token whose user may not get /metrics" "$(status /metrics "$outsider")" 403
expect_eq "a token bound to attune-metrics-reader" "$(status /metrics "$reader")" 200
body=$(curl -ksf --max-time 10 -H "Authorization: Bearer $reader" "https://127.0.0.1:$MGR_PORT/metrics")
grep -q '^attune_kube_informer_synced' <<<"$body" || fail "the authorised scrape has no attune_kube_informer_synced"
expect_eq "/readyz without a token" "$(status /readyz)" 200
expect_eq "/healthz without a token" "$(status /healthz)" 200
log "401 without or with a bad token, 403 for outsider, 200 for reader; probes open"

before=$(token_reviews)
for _ in $(seq 10); do expect_eq "a cached scrape" "$(status /metrics "$reader")" 200; done
after=$(token_reviews)
expect_eq "TokenReviews for ten cached scrapes" "$((after - before))" 0
! grep -q 'not reviewed' "$MGR_LOG" || fail "the manager could not review a token: $(grep 'not reviewed' "$MGR_LOG" | head -1)"
stop_manager

# A mounted certificate (cert-manager's Secret, say): the one served.
certs=$ATTUNE_RUN/metrics-certs-$ns
mkdir -p "$certs"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=e2e-metrics-ca -keyout "$certs/ca.key" \
  -out "$certs/ca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj /CN=attune-metrics -keyout "$certs/tls.key" -out "$certs/tls.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$certs/san.ext"
openssl x509 -req -in "$certs/tls.csr" -CA "$certs/ca.crt" -CAkey "$certs/ca.key" -CAcreateserial -days 1 \
  -extfile "$certs/san.ext" -out "$certs/tls.crt" 2>/dev/null
launch_manager --metrics-secure=true --metrics-cert-dir "$certs"
wait_until 60 secure_ready || { tail -30 "$MGR_LOG" >&2; fail "the manager with --metrics-cert-dir never became ready"; }
code=$(curl -s --max-time 10 --cacert "$certs/ca.crt" -o /dev/null -w '%{http_code}' \
  -H "Authorization: Bearer $reader" "https://127.0.0.1:$MGR_PORT/metrics")
expect_eq "a scrape verified against the mounted certificate's CA" "$code" 200
stop_manager
log "--metrics-cert-dir: the mounted certificate verifies"

# Negative control for the RBAC (image lane: the manager is the
# ServiceAccount of deploy/): without the tokenreviews rule nobody is let in.
if [ -n "${E2E_MANAGER_IMAGE:-}" ]; then
  ATTUNE_LANE_RBAC_DROP=tokenreviews launch_manager --metrics-secure=true
  wait_until 60 secure_ready || { tail -30 "$MGR_LOG" >&2; fail "the manager without tokenreviews never became ready"; }
  expect_eq "a reader's scrape without the tokenreviews rule" "$(status /metrics "$reader")" 503
  wait_until 10 grep -q 'not reviewed.*forbidden' "$MGR_LOG" \
    || fail "the log does not name the refused TokenReview: $(grep 'not reviewed' "$MGR_LOG" | head -1)"
  stop_manager
  log "without the tokenreviews rule: 503 and the 403 in the log"
fi

# Control: plain HTTP, no token, when turned off.
start_manager
code=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MGR_PORT/metrics")
expect_eq "--metrics-secure=false, no token" "$code" 200
log "control: --metrics-secure=false serves plain HTTP to anyone"
