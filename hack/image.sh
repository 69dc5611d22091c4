#!/usr/bin/env bash
# `make image`: the two OCI images, attune-manager and kubectl-attune, built
# with buildah (no Docker daemon) from the binaries of the C++ build.
#
# Each image is an empty base with only what its binary loads: the binary
# (stripped), the shared libraries ldd names, the dynamic loader, CA
# certificates and the IANA zone files (schedule windows). No shell, no package
# manager, no Debian root: mmdebstrap's minimal root would bring bash, dpkg and
# apt (Essential: yes), tens of MiB the binary never opens. docs/install.md.
#
#   hack/image.sh [--build DIR] [--out DIR]
# Writes DIR/images/{attune-manager,kubectl-attune}.tar (OCI archives that
# `podman load` and `ctr images import` accept) and leaves both images tagged
# attune/<name>:<version> in the local containers-storage. ATTUNE_IMAGE_TAG
# replaces <version> in the tag (not in the annotations), so that checkouts
# side by side on one machine do not overwrite each other's images.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=${2:?--build needs a directory}; shift 2 ;;
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    *) echo "image: unknown argument $1 (usage: hack/image.sh [--build DIR] [--out DIR])" >&2; exit 2 ;;
  esac
done
case "$build" in /*) ;; *) build="$here/$build" ;; esac
out=${out:-$build/images}
command -v buildah >/dev/null || { echo "image: buildah is missing (hack/deps.sh image installs it)" >&2; exit 2; }
version=$("$here/hack/version.sh")
revision=$(git -C "$here" rev-parse HEAD 2>/dev/null || echo unknown)
git -C "$here" diff --quiet HEAD 2>/dev/null || revision="$revision-dirty"
source_url=${ATTUNE_IMAGE_SOURCE:-https://github.com/attune-io/attune}
created=$(git -C "$here" log -1 --format=%cI 2>/dev/null || date -u +%FT%TZ)
# The numeric user the images run as (no /etc/passwd lookup needed; the
# manifests' runAsUser says the same).
uid=65532
mkdir -p "$out"
work=$(mktemp -d); ctr=""
cleanup() { [ -z "$ctr" ] || buildah rm "$ctr" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT

# rootfs_for BIN NAME: a root holding BIN as /NAME and what it loads.
rootfs_for() {
  local bin=$1 name=$2 root="$work/$2"
  mkdir -p "$root/usr/lib/x86_64-linux-gnu" "$root/usr/lib64" "$root/etc/ssl/certs" "$root/usr/share" "$root/tmp"
  ln -s usr/lib "$root/lib"; ln -s usr/lib64 "$root/lib64"
  strip --strip-unneeded -o "$root/$name" "$bin"
  local lib path
  # ldd prints "soname => /path (addr)" per library and the loader alone.
  while read -r lib path; do
    [ -n "$path" ] || continue
    cp -L "$path" "$root/usr/lib/x86_64-linux-gnu/$lib"
  done < <(ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }')
  local loader
  loader=$(readelf -l "$bin" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
  [ -n "$loader" ] || { echo "image: $bin names no program interpreter" >&2; exit 1; }
  cp -L "$loader" "$root/usr/lib64/$(basename "$loader")"
  cp -L /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
  # OpenSSL's default CA file (OPENSSLDIR/cert.pem) points at the bundle.
  mkdir -p "$root/usr/lib/ssl"; ln -s /etc/ssl/certs/ca-certificates.crt "$root/usr/lib/ssl/cert.pem"
  ln -s /etc/ssl/certs "$root/usr/lib/ssl/certs"
  # Zone files without the duplicate posix/ and leap-second right/ trees.
  (cd /usr/share && tar --exclude=zoneinfo/right --exclude=zoneinfo/posix -cf - zoneinfo) | tar -xf - -C "$root/usr/share"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%s:%s:nonroot:/home/nonroot:/sbin/nologin\n' "$uid" "$uid" >"$root/etc/passwd"
  printf 'root:x:0:\nnonroot:x:%s:\n' "$uid" >"$root/etc/group"
  chmod 1777 "$root/tmp"
  echo "$root"
}

# build_image BIN NAME DESCRIPTION
build_image() {
  local bin=$1 name=$2 description=$3 root ref
  [ -x "$bin" ] || { echo "image: $bin is not built (make build)" >&2; exit 1; }
  root=$(rootfs_for "$bin" "$name")
  ref="attune/$name:${ATTUNE_IMAGE_TAG:-$version}"
  ctr=$(buildah from scratch)
  buildah copy --quiet "$ctr" "$root/" / >/dev/null
  buildah config \
    --entrypoint "[\"/$name\"]" --user "$uid:$uid" --workingdir / \
    --env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    --annotation "org.opencontainers.image.source=$source_url" \
    --annotation "org.opencontainers.image.revision=$revision" \
    --annotation "org.opencontainers.image.version=$version" \
    --annotation "org.opencontainers.image.created=$created" \
    --annotation "org.opencontainers.image.title=$name" \
    --annotation "org.opencontainers.image.description=$description" \
    --annotation "org.opencontainers.image.licenses=Apache-2.0" \
    --label "org.opencontainers.image.source=$source_url" \
    --label "org.opencontainers.image.revision=$revision" \
    --label "org.opencontainers.image.version=$version" \
    "$ctr"
  buildah commit --quiet --format oci --rm "$ctr" "$ref" >/dev/null
  ctr=""
  rm -f "$out/$name.tar"
  buildah push --quiet "$ref" "oci-archive:$out/$name.tar:$ref" >/dev/null
  echo "image: $ref -> $out/$name.tar ($(du -k "$out/$name.tar" | cut -f1) KiB)"
}

build_image "$build/src/manager/attune-manager" attune-manager "Attune: in-place right-sizing of pod CPU and memory"
build_image "$build/src/cli/kubectl-attune" kubectl-attune "kubectl attune: the Attune kubectl plugin"
