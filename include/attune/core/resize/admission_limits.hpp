#pragma once
// LimitRange and ResourceQuota as admission would apply them to the resized
// pod, so Attune never submits a /resize those plugins refuse. LimitRange
// (Container min/max/maxLimitRequestRatio, Pod max) is checked on every
// value the resize changes, either direction: a decrease below a min would
// be refused too. ResourceQuota headroom (requests.*, limits.*, and the
// bare cpu/memory that mean requests) only bounds increases.
#include <boost/json/value.hpp>
#include <span>
#include <string>
#include <vector>

#include "attune/core/model/pod_model.hpp"
#include "attune/core/util/result.hpp"

namespace attune::core {

struct LimitRangeItem {
    std::string type;  // Container | Pod (others, e.g. PersistentVolumeClaim, are ignored)
    ResourceList min, max, max_limit_request_ratio;
};

struct QuotaFacts {
    std::string name;
    ResourceList hard, used;  // spec.hard (status.hard when spec is absent) and status.used
};

// A LimitRange object's spec.limits. Error "invalid_limit_range".
Result<std::vector<LimitRangeItem>> decode_limit_range(const boost::json::value& json);
// A ResourceQuota object. Error "invalid_resource_quota". Scopes and scope
// selectors are not evaluated: a scoped quota counts as applying (fail closed).
Result<QuotaFacts> decode_resource_quota(const boost::json::value& json);

struct AdmissionViolation {
    std::string resource;  // cpu | memory
    std::string gate;      // limit_range | resource_quota
    std::string message;
};

// Violations the change from `live` to `planned` would introduce.
std::vector<AdmissionViolation> check_limit_ranges(const Pod& live, const Pod& planned,
                                                   std::span<const LimitRangeItem> items);
std::vector<AdmissionViolation> check_quota_headroom(const Pod& live, const Pod& planned,
                                                     std::span<const QuotaFacts> quotas);

}  // namespace attune::core
