#pragma once
// Recommendation revision fingerprint (docs/lifecycle.md): workload identity,
// container names, requests and limits. Container order does not matter.
#include <string>
#include <vector>

#include "attune/core/model/pod_model.hpp"

namespace attune::core {

struct WorkloadIdentity {
    std::string api_version;
    std::string kind;
    std::string namespace_;
    std::string name;
    std::string uid;
};

struct ContainerResources {
    std::string name;
    ResourceRequirements resources;
};

// "rev-" + 16 lowercase hex digits of FNV-1a 64 (see stable_hash.hpp) over
// this canonical serialisation, every item a length-prefixed field:
//   "attune.revision/v1", api_version, kind, namespace, name, uid,
//   then per container sorted by name: "container", name,
//     then "requests" and "limits", each followed by its entries sorted by
//     resource name as (resource, exact decimal value).
// Values hash by value ("1Gi" == "1073741824", "1" == "1000m"), so a
// recommendation re-serialised differently keeps its revision. Changing
// this layout changes every revision: bump the "v1" tag if you do.
std::string revision_fingerprint(const WorkloadIdentity& workload, std::vector<ContainerResources> containers);

}  // namespace attune::core
