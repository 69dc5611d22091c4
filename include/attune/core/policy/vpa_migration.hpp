#pragma once
// One VerticalPodAutoscaler (autoscaling.k8s.io/v1, as JSON) to the
// AttunePolicy that does the closest thing, plus one note per field that has
// no equivalent. Pure; docs/cli.md "migrate" has the mapping table.
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <vector>

namespace attune::core {

struct VpaMigrationNote {
    std::string path;  // "spec.updatePolicy.minReplicas"
    std::string why;
};

struct VpaMigration {
    std::optional<boost::json::value> policy;  // absent: the VPA cannot be expressed (see notes)
    std::vector<VpaMigrationNote> notes;
};

VpaMigration migrate_vpa(const boost::json::value& vpa);

}  // namespace attune::core
