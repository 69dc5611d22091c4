#pragma once
// The values a pod had before Attune first resized it, stored on the pod as
// annotations (docs/api.md#annotations-and-labels) so a revert survives a manager restart:
//   attune.io/original-{cpu,memory}-{request,limit}.<container>  (limit keys only if non-zero)
//   attune.io/original-restart-count.<container>
//   attune.io/resized-at, attune.io/resized-workload, attune.io/resized-containers
//   label attune.io/tracked=true
// Written as one JSON merge patch of the pod's metadata before the first /resize.
#include <boost/json/object.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/policy/annotations.hpp"
#include "attune/core/model/pod_model.hpp"
#include "attune/core/util/result.hpp"
#include "attune/core/util/timestamp.hpp"

namespace attune::core {

struct ContainerOriginal {
    ResourceRequirements resources;  // cpu/memory only; zero limits left out
    std::int64_t restart_count = 0;
    friend bool operator==(const ContainerOriginal&, const ContainerOriginal&) = default;
};

struct OriginalValues {
    std::map<std::string, ContainerOriginal, std::less<>> containers;
    std::optional<Timestamp> resized_at;
    std::string workload;
    friend bool operator==(const OriginalValues&, const OriginalValues&) = default;
};

// The live values of `containers` (app containers or native sidecars).
// Containers the pod already has originals for keep them: the first
// resize's values are what a revert goes back to.
OriginalValues capture_originals(const Pod& live, std::span<const std::string> containers);

// The merge patch {"metadata":{"labels":{...},"annotations":{...}}} that
// records `originals` (resized-at = `now`, resized-containers = every
// container with originals, sorted). Send it before the /resize; a failure
// there skips the resize (history reason annotation-persist-failed/-conflict).
boost::json::object tracking_patch(const OriginalValues& originals, std::string_view workload, Timestamp now);

// The merge patch that drops the label and every tracking annotation
// (values null) once the safety period is Done or the revert is applied.
boost::json::object clear_tracking_patch(const Pod& pod);

// What the pod's annotations hold; nullopt when the pod carries none.
// A bad value (not a quantity, not a non-negative integer, a bad time, a
// container named in resized-containers without any original) is an
// error "invalid_original_annotation" naming the key.
Result<std::optional<OriginalValues>> decode_originals(const StringMap& annotations);

}  // namespace attune::core
