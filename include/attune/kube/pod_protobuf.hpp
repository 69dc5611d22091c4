#pragma once
// Pods and Status objects from the apiserver's protobuf encoding
// (application/vnd.kubernetes.protobuf), decoded straight into the JSON the
// manager keeps: exactly what strip_pod() keeps of the same pod's JSON, with
// the same omitempty rules, so the cache and every reader cannot tell the two
// encodings apart (pod_protobuf_test checks it on pods captured from the real
// apiservers). Everything strip_pod() drops is skipped unparsed, which is
// where the time goes in a JSON list. Pure: no I/O.
#include <attune/core/util/result.hpp>

#include <boost/json/value.hpp>

#include <string_view>

namespace attune::kube {

// One v1.Pod message (an item of a PodList's raw bytes, no envelope).
core::Result<boost::json::value> pod_from_protobuf(std::string_view message);

// A meta/v1 Status in the envelope (an error answer to a protobuf request),
// as the JSON Status ApiError reads: kind, status, message, reason, code.
core::Result<boost::json::value> status_from_protobuf(std::string_view body);

// The 4 bytes every protobuf answer starts with.
inline constexpr std::string_view kProtobufMagic{"k8s\0", 4};
inline bool is_protobuf_body(std::string_view body) noexcept { return body.substr(0, 4) == kProtobufMagic; }

}  // namespace attune::kube
