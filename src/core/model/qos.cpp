#include "attune/core/model/qos.hpp"

#include <array>

namespace attune::core {
namespace {

bool is_qos_resource(std::string_view name) { return name == kCpu || name == kMemory; }

// Adds the positive cpu/memory entries of `from` into `into`; returns which
// of cpu/memory were positive.
struct Seen {
    bool cpu = false;
    bool memory = false;
};

Seen accumulate(ResourceList& into, const ResourceList& from) {
    Seen seen;
    for (const auto& [name, q] : from) {
        if (!is_qos_resource(name) || q.sign() <= 0) continue;
        auto [it, inserted] = into.try_emplace(name, q);
        if (!inserted) it->second += q;
        (name == kCpu ? seen.cpu : seen.memory) = true;
    }
    return seen;
}

}  // namespace

std::string_view qos_name(QosClass q) noexcept {
    switch (q) {
        case QosClass::BestEffort: return "BestEffort";
        case QosClass::Burstable: return "Burstable";
        case QosClass::Guaranteed: return "Guaranteed";
    }
    return "Burstable";
}

std::optional<QosClass> parse_qos(std::string_view name) noexcept {
    for (auto q : {QosClass::BestEffort, QosClass::Burstable, QosClass::Guaranteed})
        if (qos_name(q) == name) return q;
    return std::nullopt;
}

QosClass compute_pod_qos(const Pod& pod, bool pod_level_resources_gate) {
    ResourceList requests, limits;
    bool guaranteed = true;
    if (pod_level_resources_gate && pod.pod_resources) {
        accumulate(requests, pod.pod_resources->requests);
        if (!pod.pod_resources->limits.empty()) {
            const Seen s = accumulate(limits, pod.pod_resources->limits);
            if (!(s.cpu && s.memory)) guaranteed = false;
        }
    } else {
        auto add = [&](const Container& c) {
            accumulate(requests, c.resources.requests);
            const Seen s = accumulate(limits, c.resources.limits);
            if (!(s.cpu && s.memory)) guaranteed = false;
        };
        for (const auto& c : pod.containers) add(c);
        for (const auto& c : pod.init_containers) add(c);
    }
    if (requests.empty() && limits.empty()) return QosClass::BestEffort;
    if (guaranteed) {
        for (const auto& [name, req] : requests) {
            const Quantity* lim = find(limits, name);
            if (!lim || *lim != req) {
                guaranteed = false;
                break;
            }
        }
    }
    return (guaranteed && requests.size() == limits.size()) ? QosClass::Guaranteed : QosClass::Burstable;
}

QosClass pod_qos(const Pod& pod, bool pod_level_resources_gate) {
    if (auto q = parse_qos(pod.qos_class)) return *q;
    return compute_pod_qos(pod, pod_level_resources_gate);
}

}  // namespace attune::core
