#!/usr/bin/env bash
# Regenerates the committed golden vectors in test/data/ from upstream
# Kubernetes code (test/golden/, its own Go module):
#   quantity_vectors.json  k8s.io/apimachinery v0.36.3 resource.Quantity
#   qos_vectors.json       k8s.io/kubernetes v1.36.3 ComputePodQOS
# Deterministic (fixed seeds): a rerun with the same versions changes nothing.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
export GOFLAGS=-mod=mod
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
cd "$here/test/golden"
nice -n 10 go build -o "$bin/quantity" ./quantity
"$bin/quantity" -out "$here/test/data/quantity_vectors.json"
# The QoS generator links k8s.io/kubernetes: heavy on a cold build cache.
nice -n 10 go build -o "$bin/qos" ./qos
"$bin/qos" -out "$here/test/data/qos_vectors.json"
git -C "$here" status --short -- test/data
