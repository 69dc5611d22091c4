#pragma once
// The upgrade gate's compat matrix (deploy/upgrade-gate/addon-compat.json;
// its "_comment" documents the format). Parsing is strict: a syntax error,
// an unknown key or a bad value is an error that names the line and the
// field, because the gate must fail safe (exit 3) on a matrix it cannot read.
// Pure.
#include "attune/core/util/result.hpp"
#include "attune/core/upgrade/upgrade_version.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace attune::core {

// Where the running version of an addon is read: a workload, and either the
// tag of one container's image or one of the workload's labels.
struct AddonSource {
    std::string kind;  // Deployment | DaemonSet | StatefulSet
    std::string ns;
    std::string name;
    std::string container;  // version from this container's image tag ...
    std::string label;      // ... or from this metadata.labels key
};

// "From `version` on, the addon supports Kubernetes up to `max_k8s`."
struct AddonVersionRow {
    DottedVersion version;
    KubeMinor max_k8s;
};

struct AddonSpec {
    std::string name;
    AddonSource source;
    std::vector<AddonVersionRow> versions;  // sorted by version, no duplicates
    bool pinned = false;                    // held on purpose, whatever the matrix offers
    std::string pin_reason;                 // required when pinned
};

struct ContainerdMinimum {
    KubeMinor k8s;
    DottedVersion min;
};

// A group-version-resource that Kubernetes `removed` no longer serves.
struct ApiRemoval {
    std::string group;  // "" for the core group
    std::string version;
    std::string resource;
    KubeMinor removed;
    std::string group_version() const { return group.empty() ? version : group + "/" + version; }
};

struct UpgradeMatrix {
    std::vector<AddonSpec> addons;                 // in file order
    std::vector<ContainerdMinimum> containerd_min; // sorted by minor
    std::vector<ApiRemoval> api_removals;          // sorted by release
};

// `source_name` (the file name) starts every error message:
// "addon-compat.json line 14: addons.calico.versions[1].max_k8s: expected a
// Kubernetes minor such as \"1.36\", got \"136\"". Error code "invalid_matrix".
Result<UpgradeMatrix> parse_upgrade_matrix(std::string_view text, std::string_view source_name);

// The containerd minimum for Kubernetes `target`: the entry of the highest
// minor <= target (minimums only rise), or none.
const ContainerdMinimum* containerd_minimum_for(const UpgradeMatrix& m, KubeMinor target);

}  // namespace attune::core
