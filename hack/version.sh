#!/usr/bin/env bash
# The version images, the chart and the kustomize base are tagged with: the
# release tag on HEAD (v0.1.0 -> 0.1.0) when there is one, else meson.build's
# project version. The exact commit is in the images' revision annotation.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
if tag=$(git -C "$here" describe --tags --exact-match --match 'v[0-9]*' HEAD 2>/dev/null); then
  echo "${tag#v}"; exit 0
fi
v=$(sed -n "s/^  version : '\([^']*\)',/\1/p" "$here/meson.build")
[ -n "$v" ] || { echo "version: no project version in meson.build" >&2; exit 1; }
echo "$v"
