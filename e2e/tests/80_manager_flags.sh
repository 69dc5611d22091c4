#!/usr/bin/env bash
# attune-manager's command line: a bad flag is a clear error and exit code 2;
# --help exits 0; an unusable kubeconfig is a clear error and exit code 1.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
require_manager

expect_exit() {  # expect_exit CODE MESSAGE-SUBSTRING ARGS...
  local want=$1 msg=$2 out rc
  shift 2
  out=$("$ATTUNE_MANAGER" "$@" 2>&1); rc=$?
  [ "$rc" = "$want" ] || fail "attune-manager $*: exit code $rc, want $want; output: $out"
  grep -qF -- "$msg" <<<"$out" || fail "attune-manager $*: output lacks '$msg': $out"
}
set +e
expect_exit 2 "unknown flag --bogus" --bogus
expect_exit 2 "--workers: expected an integer from 1 to 256" --workers=0
expect_exit 2 "--log-format: expected json or text" --log-format=xml
expect_exit 2 "--metrics-bind-address=8080: expected host:port" --metrics-bind-address=8080
expect_exit 2 "http://prom:9090 is plain http: the token would be sent in the clear" \
  --prometheus-token-addresses=http://prom:9090
expect_exit 2 "give scheme://host:port only" --prometheus-token-addresses=https://prom:9090/api
expect_exit 0 "--leader-elect" --help
expect_exit 1 "cannot load the cluster configuration" --kubeconfig /nonexistent/kubeconfig --log-format text
set -e
