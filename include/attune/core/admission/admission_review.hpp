#pragma once
// admission.k8s.io/v1 AdmissionReview: decoding the request the apiserver
// sends and encoding the response it expects. Pure; the server around it
// only moves bytes.
//
// Error policy (docs/webhook.md): a body that is not an AdmissionReview v1
// with a request uid cannot be answered with a review (there is no uid to
// echo), so it gets HTTP 400 with the decoder's message. A well-formed
// review whose object Attune cannot use is answered `allowed: true` with no
// patch and a warning: Attune never refuses a pod or a workload.
#include <boost/json/array.hpp>
#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/util/result.hpp"

namespace attune::core {

inline constexpr std::string_view kAdmissionApiVersion = "admission.k8s.io/v1";

struct GroupVersionKind {
    std::string group;
    std::string version;
    std::string kind;
};

struct GroupVersionResource {
    std::string group;
    std::string version;
    std::string resource;
};

struct AdmissionRequest {
    std::string uid;
    GroupVersionKind kind;
    GroupVersionResource resource;
    std::string sub_resource;
    std::string name;        // may be empty on CREATE (generateName)
    std::string namespace_;
    std::string operation;   // CREATE | UPDATE | DELETE | CONNECT
    std::string username;    // userInfo.username
    bool dry_run = false;
    boost::json::value object;      // null when absent (DELETE)
    boost::json::value old_object;  // null when absent (CREATE)
};

// Error code "invalid_admission_review": not JSON, not an object, a wrong
// apiVersion or kind, no request, no request.uid, or a field of the wrong
// type. The message names what was wrong.
Result<AdmissionRequest> decode_admission_review(std::string_view body);

struct AdmissionResponse {
    std::string uid;
    bool allowed = true;
    boost::json::array patch;  // RFC 6902; sent base64 as patchType JSONPatch when non-empty
    std::vector<std::string> warnings;
    // A denial's status (allowed == false): HTTP-like code and message.
    int status_code = 0;
    std::string status_message;
};

// {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{...}}
std::string encode_admission_review(const AdmissionResponse& response);

// The apiserver may truncate a webhook warning longer than 256 characters
// (and ignores warnings past 4 KiB in total), so each warning is cut here,
// ending in "...", rather than losing its end unpredictably.
inline constexpr std::size_t kMaxWarningLength = 256;

}  // namespace attune::core
