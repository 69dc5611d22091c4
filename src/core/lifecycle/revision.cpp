#include "attune/core/lifecycle/revision.hpp"

#include <algorithm>
#include <cstdio>

#include "attune/core/util/stable_hash.hpp"

namespace attune::core {

std::string revision_fingerprint(const WorkloadIdentity& w, std::vector<ContainerResources> containers) {
    std::sort(containers.begin(), containers.end(),
              [](const ContainerResources& a, const ContainerResources& b) { return a.name < b.name; });
    StableHasher h;
    h.field("attune.revision/v1").field(w.api_version).field(w.kind).field(w.namespace_).field(w.name).field(w.uid);
    for (const auto& c : containers) {
        h.field("container").field(c.name);
        // ResourceList is an ordered map: entries come sorted by name.
        h.field("requests");
        for (const auto& [r, q] : c.resources.requests) h.field(r).field(q.decimal_string());
        h.field("limits");
        for (const auto& [r, q] : c.resources.limits) h.field(r).field(q.decimal_string());
    }
    char buf[21];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h.digest()));
    return std::string("rev-") + buf;
}

}  // namespace attune::core
