#pragma once
// A coordination.k8s.io/v1 Lease as its readers judge it: who holds it and
// whether that holder still renews. The CLI judges from one read, so the
// clock is the caller's: fresh while renewTime + leaseDurationSeconds is not
// past `now` (client-go's elector judges from its own observation instead;
// clock skew between the two is not corrected). Pure.
#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "attune/core/util/timestamp.hpp"

namespace attune::core {

// client-go's default when leaseDurationSeconds is absent.
inline constexpr std::int64_t kDefaultLeaseDurationSeconds = 15;

struct LeaseRecord {
    std::string holder;                // spec.holderIdentity; "" = held by nobody
    std::optional<Timestamp> renewed;  // spec.renewTime (MicroTime, the fraction dropped)
    std::int64_t duration_seconds = kDefaultLeaseDurationSeconds;
    std::int64_t age_seconds = 0;  // now - renewed, never negative
    std::int64_t transitions = 0;  // spec.leaseTransitions
    bool fresh = false;            // held, and renewed within its duration
    friend bool operator==(const LeaseRecord&, const LeaseRecord&) = default;
};

// A holder with no readable renewTime is not fresh: nothing says it renews.
LeaseRecord read_lease_record(const boost::json::value& lease, Timestamp now);

}  // namespace attune::core
