#include "attune/core/model/lease_record.hpp"

#include <algorithm>

#include "attune/core/util/json_path.hpp"

namespace attune::core {

LeaseRecord read_lease_record(const boost::json::value& lease, Timestamp now) {
    LeaseRecord r;
    r.holder = std::string(string_at(lease, {"spec", "holderIdentity"}));
    r.duration_seconds = int_at(lease, {"spec", "leaseDurationSeconds"}).value_or(kDefaultLeaseDurationSeconds);
    r.transitions = int_at(lease, {"spec", "leaseTransitions"}).value_or(0);
    if (auto t = parse_timestamp(string_at(lease, {"spec", "renewTime"}))) {
        r.renewed = t.value();
        r.age_seconds = std::max<std::int64_t>(0, (now - t.value()).count());
    }
    r.fresh = !r.holder.empty() && r.renewed && r.age_seconds <= r.duration_seconds;
    return r;
}

}  // namespace attune::core
