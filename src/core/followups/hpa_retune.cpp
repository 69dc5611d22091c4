#include "attune/core/followups/hpa_retune.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>

#include "attune/core/policy/annotations.hpp"

namespace attune::core {
namespace {

// The CPU Utilization target object of a metric, or nullptr.
boost::json::object* cpu_utilization_target(boost::json::value& metric) {
    if (!metric.is_object()) return nullptr;
    auto& m = metric.get_object();
    const auto* type = m.if_contains("type");
    if (!type || !type->is_string()) return nullptr;
    const char* key = type->get_string() == "Resource" ? "resource"
                      : type->get_string() == "ContainerResource" ? "containerResource" : nullptr;
    if (!key) return nullptr;
    auto* src = m.if_contains(key);
    if (!src || !src->is_object()) return nullptr;
    const auto* name = src->get_object().if_contains("name");
    if (!name || !name->is_string() || name->get_string() != "cpu") return nullptr;
    auto* target = src->get_object().if_contains("target");
    if (!target || !target->is_object()) return nullptr;
    const auto* t = target->get_object().if_contains("type");
    if (!t || !t->is_string() || t->get_string() != "Utilization") return nullptr;
    const auto* u = target->get_object().if_contains("averageUtilization");
    if (!u || !u->is_int64()) return nullptr;
    return &target->get_object();
}

}  // namespace

int retuned_target(int base, const Quantity& base_request, const Quantity& new_request,
                   const std::optional<Quantity>& new_limit) {
    if (new_request.milli_value() <= 0 || base_request.milli_value() <= 0) return base;  // no request: nothing to scale by
    const long double ratio = static_cast<long double>(base_request.milli_value()) /
                              static_cast<long double>(new_request.milli_value());
    long long t = static_cast<long long>(static_cast<long double>(base) * ratio + 0.5L);
    long long cap = 100;
    if (new_limit && new_limit->sign() > 0)
        cap = new_limit->milli_value() * 100 / new_request.milli_value();
    return static_cast<int>(std::clamp<long long>(t, 1, std::max<long long>(cap, 1)));
}

HpaRetuneDecision retune_hpa(const boost::json::value& hpa_in, const Quantity& base_request, const Quantity& new_request,
                             const std::optional<Quantity>& new_limit) {
    if (!hpa_in.is_object()) return HpaRetuneSkip{"invalid_hpa", "the HPA is not an object"};
    boost::json::value hpa = hpa_in;
    auto& root = hpa.get_object();
    const boost::json::object* ann = nullptr;
    std::string rv;
    if (const auto* md = root.if_contains("metadata"); md && md->is_object()) {
        if (const auto* a = md->get_object().if_contains("annotations"); a && a->is_object()) ann = &a->get_object();
        if (const auto* r = md->get_object().if_contains("resourceVersion"); r && r->is_string()) rv = r->get_string();
    }
    auto annotation = [&](std::string_view k) -> const boost::json::value* {
        return ann ? ann->if_contains(k) : nullptr;
    };
    if (const auto* v = annotation(kAutoTuneAnnotation); !v || !v->is_string() || v->get_string() != "true")
        return HpaRetuneSkip{"not_opted_in", "the HPA is not annotated attune.io/auto-tune=true"};
    if (base_request.sign() <= 0 || new_request.sign() <= 0)
        return HpaRetuneSkip{"no_request", "a CPU utilisation target needs a CPU request"};
    auto* spec = root.if_contains("spec");
    auto* metrics = spec && spec->is_object() ? spec->get_object().if_contains("metrics") : nullptr;
    if (!metrics || !metrics->is_array()) return HpaRetuneSkip{"no_cpu_utilization_target", "the HPA lists no metrics"};
    std::vector<boost::json::object*> targets;
    for (auto& m : metrics->get_array())
        if (auto* t = cpu_utilization_target(m)) targets.push_back(t);
    if (targets.empty())
        return HpaRetuneSkip{"no_cpu_utilization_target", "the HPA has no CPU Utilization target to retune"};
    int base = static_cast<int>(targets.front()->at("averageUtilization").as_int64());
    if (const auto* v = annotation(kOriginalTargetCpuAnnotation)) {
        const std::string_view s = v->is_string() ? std::string_view(v->get_string()) : std::string_view();
        int parsed = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), parsed);
        if (s.empty() || ec != std::errc{} || end != s.data() + s.size() || parsed < 1)
            return HpaRetuneSkip{"invalid_original_target",
                                 "annotation attune.io/original-target-cpu is not a positive integer percent"};
        base = parsed;
    }
    const int target = retuned_target(base, base_request, new_request, new_limit);
    bool changed = false;
    for (auto* t : targets) {
        changed |= t->at("averageUtilization").as_int64() != target;
        (*t)["averageUtilization"] = target;
    }
    if (!changed)
        return HpaRetuneSkip{"unchanged", "the CPU target is already " + std::to_string(target) + "%"};
    HpaRetune out;
    out.base_target = base;
    out.new_target = target;
    boost::json::object md{{"annotations", boost::json::object{{kOriginalTargetCpuAnnotation, std::to_string(base)}}}};
    if (!rv.empty()) md["resourceVersion"] = rv;  // 409 if someone edited the metrics meanwhile
    out.patch = boost::json::object{{"metadata", std::move(md)},
                                    {"spec", boost::json::object{{"metrics", std::move(*metrics)}}}};
    return out;
}

}  // namespace attune::core
