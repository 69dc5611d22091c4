# Thin wrapper: every target is one script under hack/ so CI and humans run the same thing.
K8S ?= 1.36
BUILD ?= build
MESON_FLAGS ?=

.PHONY: all deps build image unit test e2e e2e-matrix cluster cluster-down demo run bench bench-scale bench-resize fuzz golden clean install-plugin krew-manifest

all: build

deps:
	hack/deps.sh

build: deps
	hack/build.sh $(BUILD) $(MESON_FLAGS)

# The two OCI images (buildah, no daemon): build/images/{attune-manager,kubectl-attune}.tar
image: build
	BUILD=$(BUILD) hack/image.sh

unit: build
	meson test -C $(BUILD) --print-errorlogs

# Unit tests plus the e2e suite on the newest stable minor (1.36).
test:
	ATTUNE_TEST_START=$$(date +%s) && hack/deps.sh && ATTUNE_TEST_START=$$ATTUNE_TEST_START hack/test.sh

# The e2e suite drives binaries from the C++ build (attune-manager, drivers).
e2e: build
	E2E_REQUIRE_BUILD=1 hack/e2e.sh --k8s $(K8S)

# The manager runs in its image with a ServiceAccount's identity (the image lane).
e2e-matrix: image
	E2E_REQUIRE_BUILD=1 E2E_MANAGER_IMAGE=attune/attune-manager:$$(hack/version.sh) hack/e2e-matrix.sh

cluster: deps
	hack/cluster.sh up --k8s $(K8S)

cluster-down:
	hack/cluster.sh down

demo: image
	hack/demo.sh --k8s $(K8S)

run: build
	hack/run.sh

# kubectl finds plugins on $PATH: `kubectl attune ...` once PREFIX/bin is on it.
PREFIX ?= $(HOME)/.local
install-plugin: build
	install -D -m 0755 $(BUILD)/src/cli/kubectl-attune $(PREFIX)/bin/kubectl-attune
	@echo "installed $(PREFIX)/bin/kubectl-attune; with it on PATH: kubectl attune version --client"

# The krew archive and the filled manifest under $(BUILD)/krew/.
krew-manifest: build
	BUILD=$(BUILD) hack/krew-manifest.sh

bench: build
	hack/bench.sh

# attune-manager with 10,000 pods on a local 1.36 control plane (about 10
# minutes; PODS=, CHURN= seconds). Not part of make test.
bench-scale: build
	hack/deps.sh bench
	hack/bench-scale.sh --pods $(or $(PODS),10000) --churn $(or $(CHURN),120) --heaptrack

# The executor against the real apiserver with kubesim: 1,000 pods resized to Applied.
bench-resize: build
	hack/bench-resize.sh

fuzz:
	hack/deps.sh fuzz
	hack/fuzz.sh

golden:
	hack/golden.sh

clean:
	rm -rf $(BUILD) build-*
