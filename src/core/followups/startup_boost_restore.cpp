#include "attune/core/followups/startup_boost_restore.hpp"

#include <boost/json.hpp>
#include <cmath>

#include "attune/core/policy/annotations.hpp"

namespace attune::core {

BoostRestoreDecision decide_boost_restore(const Pod& pod, const BoostRestoreInputs& in) {
    BoostRestoreDecision d;
    const auto it = pod.annotations.find(kStartupBoostAtAnnotation);
    if (it == pod.annotations.end()) return d;
    const auto at = parse_timestamp(it->second);
    if (at.ok()) {
        const auto ends = at.value() + in.duration;
        if (in.now < ends) {
            d.action = BoostRestoreAction::Boosting;
            d.remaining = ends - in.now;
            return d;
        }
        d.message = "startup boost ended at " + format_timestamp(ends);
    } else {
        d.message = "annotation " + std::string(kStartupBoostAtAnnotation) + " is unreadable (" + at.error().message +
                    "); restoring now";
    }
    auto consider = [&](const Container& c) {
        const Quantity* live = find(c.resources.requests, kCpu);
        if (!live) return;
        Quantity want;
        if (const auto u = in.unboosted.find(c.name); u != in.unboosted.end() && find(u->second.requests, kCpu)) {
            want = *find(u->second.requests, kCpu);
        } else if (in.multiplier > 1.0) {
            want = Quantity::from_milli(
                static_cast<std::int64_t>(std::ceil(static_cast<double>(live->milli_value()) / in.multiplier)));
        } else {
            return;
        }
        if (want < *live) d.targets.push_back({c.name, {{{std::string(kCpu), want}}, {}}, std::nullopt});
    };
    for (const auto& c : pod.containers) consider(c);
    for (const auto& c : pod.init_containers)
        if (c.is_native_sidecar()) consider(c);
    d.action = d.targets.empty() ? BoostRestoreAction::Clear : BoostRestoreAction::Restore;
    return d;
}

boost::json::object boost_restore_done_patch() {
    return boost::json::object{
        {"metadata", boost::json::object{{"annotations", boost::json::object{{kStartupBoostAtAnnotation, nullptr}}}}}};
}

}  // namespace attune::core
