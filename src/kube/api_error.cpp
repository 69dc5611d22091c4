#include <attune/kube/api_error.hpp>

#include <attune/kube/pod_protobuf.hpp>

#include <boost/json.hpp>

#include <fmt/format.h>

namespace attune::kube {
namespace json = boost::json;

std::string ApiError::describe() const {
    switch (kind) {
        case ErrorKind::ApiStatus:
            return fmt::format("apiserver returned {} {}: {}", code, reason.empty() ? "(no reason)" : reason, message);
        case ErrorKind::Transport:
            return fmt::format("transport failure ({}) after {} attempt(s): {}", http::to_string(transport), attempts,
                               message);
        case ErrorKind::QueueFull: return "client request queue full: " + message;
        case ErrorKind::Decode: return "cannot decode response: " + message;
        case ErrorKind::Cancelled: return "request cancelled";
        case ErrorKind::Fenced: return message;
        case ErrorKind::Credentials: return "cannot obtain credentials: " + message;
        case ErrorKind::OutOfScope: return message;
    }
    return message;
}

ApiError ApiError::from_response(unsigned http_status, std::string_view body) {
    ApiError e;
    e.kind = ErrorKind::ApiStatus;
    e.code = static_cast<int>(http_status);
    boost::system::error_code ec;
    json::value v;
    std::string undecodable;
    if (is_protobuf_body(body)) {
        // The answer to a request that accepted protobuf (a list of pods).
        auto status = status_from_protobuf(body);
        if (status) v = std::move(status).value();
        else body = undecodable = "(an undecodable protobuf answer: " + status.error().message + ")";
    } else {
        v = json::parse(body, ec);
    }
    if (!ec && v.is_object()) {
        const auto& o = v.get_object();
        if (auto* k = o.if_contains("kind"); k && k->is_string() && k->get_string() == "Status") {
            if (auto* r = o.if_contains("reason"); r && r->is_string()) e.reason = r->get_string();
            if (auto* m = o.if_contains("message"); m && m->is_string()) e.message = m->get_string();
            if (auto* c = o.if_contains("code"); c && c->is_int64() && c->get_int64() >= 100 && c->get_int64() < 600)
                e.code = static_cast<int>(c->get_int64());
            return e;
        }
    }
    constexpr std::size_t kKeep = 512;
    e.message = std::string(body.substr(0, kKeep));
    if (e.reason.empty()) {
        switch (http_status) {
            case 404: e.reason = "NotFound"; break;
            case 409: e.reason = "Conflict"; break;
            case 410: e.reason = "Gone"; break;
            case 429: e.reason = "TooManyRequests"; break;
            case 503: e.reason = "ServiceUnavailable"; break;
            default: break;
        }
    }
    return e;
}

ApiError ApiError::from_transport(http::Failure f, std::string_view detail) {
    ApiError e;
    e.kind = f == http::Failure::Cancelled ? ErrorKind::Cancelled : ErrorKind::Transport;
    e.transport = f;
    e.message = std::string(detail);
    return e;
}

}  // namespace attune::kube
