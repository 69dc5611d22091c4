#pragma once
// Pod-level resources (spec.resources, the "envelope") math: raise-to-cover,
// never invent, never shrink.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/model/pod_model.hpp"
#include "attune/core/model/qos.hpp"

namespace attune::core {

// The pod's aggregate request for `resource` as the apiserver validates it
// against the envelope (component-helpers AggregateContainerRequests): app
// containers plus native sidecars, or a regular init container's peak
// (plus the sidecars started before it) when that is higher. Containers
// Attune excludes from recommendations still count: they occupy the
// envelope all the same.
Quantity sum_container_requests(const Pod& pod, std::string_view resource);

// Highest single app-container limit for `resource` (validation checks
// spec.containers only). The sum of limits is deliberately not used: it may
// legally exceed the envelope.
Quantity max_container_limit(const Pod& pod, std::string_view resource);

// What the scheduler, the node and the quota count for the pod, per cpu and
// memory: max(sum_container_requests, envelope requests). The capacity
// gates and ResizePlan::pod_requests use it.
ResourceList pod_requests(const Pod& pod);

// The same for limits: the envelope limit where set, else the aggregate of
// the container limits (a resource with no limit anywhere is absent: no
// limit is unbounded, so quota limits.* cannot be checked against it).
ResourceList pod_limits(const Pod& pod);

struct EnvelopeRaise {
    ResourceRequirements next;
    bool raised = false;         // anything increased
    bool limits_raised = false;  // an envelope limit increased (a user cap lifted)
};

// `planned` already carries the container targets. For cpu and memory:
//   requests[r] >= max(current, sum_container_requests)   (key present only)
//   limits[r]   >= max(current, max_container_limit)      (key present only)
//   limits[r]   >= requests[r] whenever both exist, every QoS class
//                 ({req:1, lim:2} + a request raise to 2.5 => {2.5, 2.5})
//   Guaranteed (qos, or envelope request == limit for cpu and memory):
//                 request and limit rise together and stay equal.
// Other keys (hugepages-*, ...) are copied unchanged. Never lowers anything,
// never adds a key. nullopt when there is no envelope: do not invent one.
std::optional<EnvelopeRaise> raise_envelope(const std::optional<ResourceRequirements>& current, const Pod& planned,
                                            QosClass qos);

// Why `planned` does not fit `envelope` as it stands, one line per
// violation ("requests.cpu: containers need 2500m, envelope has 2"); empty
// when it fits.
std::vector<std::string> exceeds_envelope(const Pod& planned, const ResourceRequirements& envelope);

// Per container: the proposed resources for one container written onto a copy.
std::vector<std::string> exceeds_envelope(const Pod& pod, std::string_view container,
                                          const ResourceRequirements& proposed, const ResourceRequirements& envelope);

}  // namespace attune::core
