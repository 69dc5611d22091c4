#!/usr/bin/env bash
# The images of `make image` (image lane only): both OCI archives load with
# `podman load` and with containerd's `ctr images import` (a containerd of
# this test's own, on a private socket); each image runs its binary as the
# entrypoint, as a numeric non-root user, with a read-only root, no tmpfs and
# no capabilities; it holds no shell; it carries the OCI source, revision and
# version annotations, the version being hack/version.sh's.
. "$(dirname "$0")/../lib.sh"
[ -n "${E2E_MANAGER_IMAGE:-}" ] || skip "needs the image lane (E2E_MANAGER_IMAGE; make test sets it)"
images="$REPO_ROOT/${BUILD:-build}/images"
version=$("$REPO_ROOT/hack/version.sh")
tag=${ATTUNE_IMAGE_TAG:-$version}   # hack/image.sh: the tag may differ from the version
revision=$(git -C "$REPO_ROOT" rev-parse HEAD)
run_image() {
  podman run --rm --runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 --network none \
    --read-only --read-only-tmpfs=false --cap-drop ALL --security-opt no-new-privileges "$@"
}

for name in attune-manager kubectl-attune; do
  archive="$images/$name.tar"
  [ -s "$archive" ] || fail "$archive is missing (make image)"
  loaded=$(podman load -i "$archive" 2>&1) || fail "podman load refused $archive: $loaded"
  ref="attune/$name:$tag"
  podman image exists "$ref" || fail "$archive did not load as $ref: $loaded"

  user=$(podman image inspect "$ref" --format '{{.Config.User}}')
  [[ $user =~ ^[0-9]+:[0-9]+$ && ${user%%:*} != 0 ]] || fail "$ref runs as '$user', want a numeric non-root uid:gid"
  entry=$(podman image inspect "$ref" --format '{{json .Config.Entrypoint}}')
  expect_eq "$ref entrypoint" "$entry" "[\"/$name\"]"
  ann() { podman image inspect "$ref" --format "{{index .Annotations \"org.opencontainers.image.$1\"}}"; }
  [ -n "$(ann source)" ] || fail "$ref has no org.opencontainers.image.source"
  expect_eq "$ref version annotation" "$(ann version)" "$version"
  [[ $(ann revision) == "$revision"* ]] || fail "$ref revision '$(ann revision)' is not HEAD $revision"

  # No shell, no package manager: nothing to exec but the binary.
  for tool in /bin/sh /bin/bash /usr/bin/apt-get /usr/bin/dpkg /bin/busybox; do
    if run_image --entrypoint "$tool" "$ref" -c true >/dev/null 2>&1; then fail "$ref holds $tool"; fi
  done
done

# The binaries run there as they are: flags are container arguments.
out=$(run_image "attune/attune-manager:$tag" --help) || fail "attune-manager --help failed in its image"
grep -q -- '--leader-elect' <<<"$out" || fail "attune-manager --help in its image: $out"
out=$(run_image "attune/kubectl-attune:$tag" version --client) || fail "kubectl attune version failed in its image"
grep -q "v$version" <<<"$out" || fail "kubectl attune version in its image: $out"
# Time zones are there for schedule windows, certificates for TLS.
out=$(run_image --entrypoint /attune-manager "attune/attune-manager:$tag" --log-format text --kubeconfig /nonexistent 2>&1 || true)
grep -q "cannot load the cluster configuration" <<<"$out" || fail "the manager in its image: $out"

# containerd's import, on a containerd of this test's own.
command -v containerd >/dev/null && command -v ctr >/dev/null || fail "containerd and ctr are missing (hack/deps.sh installs them)"
croot=$(mktemp -d "$ATTUNE_RUN/containerd-XXXX")
at_exit "rm -rf $croot"
cat >"$croot/config.toml" <<EOF
version = 2
root = "$croot/root"
state = "$croot/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$croot/containerd.sock"
EOF
containerd --config "$croot/config.toml" >"$croot/containerd.log" 2>&1 &
cpid=$!
at_exit "kill $cpid 2>/dev/null; wait $cpid 2>/dev/null"
wait_until 20 ctr --address "$croot/containerd.sock" version || fail "containerd did not start: $(tail -5 "$croot/containerd.log")"
for name in attune-manager kubectl-attune; do
  ctr --address "$croot/containerd.sock" -n e2e images import --no-unpack "$images/$name.tar" >/dev/null \
    || fail "ctr images import refused $name.tar"
  ctr --address "$croot/containerd.sock" -n e2e images ls -q | grep -q "attune/$name:$tag" \
    || fail "ctr did not list attune/$name:$tag: $(ctr --address "$croot/containerd.sock" -n e2e images ls -q)"
done
log "both archives load with podman and ctr; $(podman image inspect "attune/attune-manager:$tag" --format '{{.Size}}') bytes for the manager"
