#!/usr/bin/env bash
# Harness check, not a proof of Attune: a Python stand-in webhook served at
# https://127.0.0.1:<port> (URL clientConfig with caBundle) is called by the
# real apiserver on pod CREATE, so the local control plane can reach loopback
# webhooks at all. Attune's own webhook is proven by 51-55 and 59.
. "$(dirname "$0")/../lib.sh"
require_local
test_namespace
tmp=$(mktemp -d)
wh="attune-e2e-$ns"
at_exit "rm -rf $tmp; k delete mutatingwebhookconfiguration $wh --ignore-not-found >/dev/null 2>&1"
# Serving certificate signed by the cluster CA, with the IP SAN the URL uses.
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$tmp/tls.key" -out "$tmp/tls.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > "$tmp/ext"
openssl x509 -req -in "$tmp/tls.csr" -CA "$CLUSTER_DIR/pki/ca.crt" -CAkey "$CLUSTER_DIR/pki/ca.key" \
  -CAcreateserial -CAserial "$tmp/ca.srl" -days 1 -extfile "$tmp/ext" -out "$tmp/tls.crt" 2>/dev/null
python3 "$E2E_ROOT/testwebhook/webhook.py" "$WEBHOOK_PORT" "$tmp/tls.crt" "$tmp/tls.key" > "$tmp/webhook.log" 2>&1 & srv=$!
at_exit "kill $srv"
wait_until 10 curl -s --cacert "$CLUSTER_DIR/pki/ca.crt" -o /dev/null "https://127.0.0.1:$WEBHOOK_PORT/" || fail "test webhook did not start: $(cat "$tmp/webhook.log")"
k apply -f - >/dev/null <<YAML
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: $wh}
webhooks:
- name: pods.e2e.attune.io
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Fail
  timeoutSeconds: 5
  clientConfig:
    url: https://127.0.0.1:$WEBHOOK_PORT/mutate-pods
    caBundle: $(base64 -w0 < "$CLUSTER_DIR/pki/ca.crt")
  rules:
  - {operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}
  namespaceSelector:
    matchLabels: {kubernetes.io/metadata.name: $ns}
YAML
# Webhook configuration is picked up asynchronously; retry the create briefly.
created() { k -n "$ns" run probe-$RANDOM --image=attune.local/pause:1 --restart=Never -o json 2>/dev/null | jq -e '.metadata.labels["attune-e2e/webhook"] == "called"'; }
wait_until 30 created || fail "pod created without the webhook's label; webhook log: $(cat "$tmp/webhook.log")"
grep -q "admit CREATE $ns/" "$tmp/webhook.log" || fail "webhook did not log the call"
