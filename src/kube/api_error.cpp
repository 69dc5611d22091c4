#include <attune/kube/api_error.hpp>

#include <attune/kube/pod_protobuf.hpp>

#include <boost/json.hpp>

#include <fmt/format.h>

namespace attune::kube {
namespace json = boost::json;

std::string api_error::describe() const {
    switch (kind) {
        case error_kind::api_status:
            return fmt::format("apiserver returned {} {}: {}", code, reason.empty() ? "(no reason)" : reason, message);
        case error_kind::transport:
            return fmt::format("transport failure ({}) after {} attempt(s): {}", http::to_string(transport), attempts,
                               message);
        case error_kind::queue_full: return "client request queue full: " + message;
        case error_kind::decode: return "cannot decode response: " + message;
        case error_kind::cancelled: return "request cancelled";
        case error_kind::fenced: return message;
        case error_kind::credentials: return "cannot obtain credentials: " + message;
        case error_kind::out_of_scope: return message;
    }
    return message;
}

api_error api_error::from_response(unsigned http_status, std::string_view body) {
    api_error e;
    e.kind = error_kind::api_status;
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
    constexpr std::size_t keep = 512;
    e.message = std::string(body.substr(0, keep));
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

api_error api_error::from_transport(http::failure f, std::string_view detail) {
    api_error e;
    e.kind = f == http::failure::cancelled ? error_kind::cancelled : error_kind::transport;
    e.transport = f;
    e.message = std::string(detail);
    return e;
}

}  // namespace attune::kube
