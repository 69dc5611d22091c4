#include "attune/core/resize/envelope.hpp"

#include "attune/core/model/readable_units.hpp"

namespace attune::core {
namespace {

const Quantity kZero{};

const Quantity& value_or_zero(const ResourceList& l, std::string_view r) {
    const Quantity* q = find(l, r);
    return q ? *q : kZero;
}

// component-helpers' aggregate: app containers and sidecars are resident;
// a regular init container runs alone with the sidecars started before it.
Quantity aggregate(const Pod& pod, std::string_view resource, ResourceList ResourceRequirements::*member) {
    Quantity running;  // app containers and sidecars, always resident
    for (const auto& c : pod.containers) running += value_or_zero(c.resources.*member, resource);
    Quantity sidecars_so_far;
    Quantity init_peak;
    for (const auto& c : pod.init_containers) {
        const Quantity& q = value_or_zero(c.resources.*member, resource);
        if (c.is_native_sidecar()) {
            running += q;
            sidecars_so_far += q;
            init_peak = max(init_peak, sidecars_so_far);
        } else {
            init_peak = max(init_peak, sidecars_so_far + q);
        }
    }
    return max(running, init_peak);
}

bool any_container_has(const Pod& pod, std::string_view resource, ResourceList ResourceRequirements::*member) {
    for (const auto* list : {&pod.containers, &pod.init_containers})
        for (const auto& c : *list)
            if (find(c.resources.*member, resource)) return true;
    return false;
}

}  // namespace

Quantity sum_container_requests(const Pod& pod, std::string_view resource) {
    return aggregate(pod, resource, &ResourceRequirements::requests);
}

ResourceList pod_requests(const Pod& pod) {
    ResourceList out;
    for (std::string_view r : {kCpu, kMemory}) {
        Quantity q = sum_container_requests(pod, r);
        if (pod.pod_resources) {
            if (const Quantity* env = find(pod.pod_resources->requests, r)) q = max(q, *env);
        }
        out.emplace(std::string(r), q);
    }
    return out;
}

ResourceList pod_limits(const Pod& pod) {
    ResourceList out;
    for (std::string_view r : {kCpu, kMemory}) {
        if (pod.pod_resources) {
            if (const Quantity* env = find(pod.pod_resources->limits, r)) {
                out.emplace(std::string(r), *env);
                continue;
            }
        }
        if (any_container_has(pod, r, &ResourceRequirements::limits))
            out.emplace(std::string(r), aggregate(pod, r, &ResourceRequirements::limits));
    }
    return out;
}

Quantity max_container_limit(const Pod& pod, std::string_view resource) {
    Quantity m;
    for (const auto& c : pod.containers) m = max(m, value_or_zero(c.resources.limits, resource));
    return m;
}

std::optional<EnvelopeRaise> raise_envelope(const std::optional<ResourceRequirements>& current, const Pod& planned,
                                            QosClass qos) {
    if (!current) return std::nullopt;
    EnvelopeRaise out{*current, false, false};
    auto equal_pair = [&](std::string_view r) {
        const Quantity* req = find(current->requests, r);
        const Quantity* lim = find(current->limits, r);
        return req && lim && *req == *lim;
    };
    const bool guaranteed = qos == QosClass::Guaranteed || (equal_pair(kCpu) && equal_pair(kMemory));
    for (std::string_view r : {kCpu, kMemory}) {
        auto req = out.next.requests.find(r);
        auto lim = out.next.limits.find(r);
        const bool has_req = req != out.next.requests.end();
        const bool has_lim = lim != out.next.limits.end();
        Quantity want_req = has_req ? max(req->second, sum_container_requests(planned, r)) : Quantity{};
        Quantity want_lim = has_lim ? max(lim->second, max_container_limit(planned, r)) : Quantity{};
        if (has_req && has_lim) {
            want_lim = max(want_lim, want_req);
            if (guaranteed) want_req = want_lim;
        }
        if (has_req && want_req > req->second) {
            req->second = want_req;
            out.raised = true;
        }
        if (has_lim && want_lim > lim->second) {
            lim->second = want_lim;
            out.raised = true;
            out.limits_raised = true;
        }
    }
    return out;
}

std::vector<std::string> exceeds_envelope(const Pod& planned, const ResourceRequirements& envelope) {
    std::vector<std::string> why;
    for (std::string_view r : {kCpu, kMemory}) {
        if (const Quantity* env = find(envelope.requests, r)) {
            const Quantity sum = sum_container_requests(planned, r);
            if (sum > *env)
                why.push_back("requests." + std::string(r) + ": containers need " + readable_quantity(r, sum) +
                              ", envelope has " + readable_quantity(r, *env));
        }
        if (const Quantity* env = find(envelope.limits, r)) {
            for (const auto& c : planned.containers) {
                const Quantity* lim = find(c.resources.limits, r);
                if (lim && *lim > *env)
                    why.push_back("limits." + std::string(r) + ": container " + c.name + " limit " +
                                  readable_quantity(r, *lim) + " exceeds envelope " + readable_quantity(r, *env));
            }
        }
    }
    return why;
}

std::vector<std::string> exceeds_envelope(const Pod& pod, std::string_view container,
                                          const ResourceRequirements& proposed, const ResourceRequirements& envelope) {
    Pod planned = pod;
    if (Container* c = planned.find_container(container)) c->resources = proposed;
    return exceeds_envelope(planned, envelope);
}

}  // namespace attune::core
