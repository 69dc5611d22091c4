#include "attune/core/recommend/cloudwatch_response.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>

#include "../util/json_decode.hpp"

namespace attune::core {

namespace json = boost::json;
using detail::as_object;
using detail::fail;

double cloudwatch_cpu_divisor(CloudWatchCpuUnit unit) {
    switch (unit) {
        case CloudWatchCpuUnit::Cores: return 1.0;
        case CloudWatchCpuUnit::Nanocores: return 1e9;
        case CloudWatchCpuUnit::Millicores: break;
    }
    return 1000.0;
}

CloudWatchAnswer::CloudWatchAnswer(ResourceKind resource, CloudWatchCpuUnit unit, std::string pod_prefix,
                                   const PromDecodeLimits& limits)
    : divide_by_(resource == ResourceKind::Cpu ? cloudwatch_cpu_divisor(unit) : 1.0),
      pod_prefix_(std::move(pod_prefix)), limits_(limits), cap_{limits.max_samples} {
    response_.result_type = "matrix";
}

Result<std::string> CloudWatchAnswer::add_page(std::string_view body) {
    boost::system::error_code ec;
    const json::value root = json::parse(body, ec);
    if (ec) return make_error("invalid_response", "cloudwatch answered something that is not JSON: " + ec.message());
    try {
        const auto& o = as_object(root, "response");
        const auto* results = detail::opt_array(o, "MetricDataResults", "response");
        if (!results) fail("response.MetricDataResults", "missing");
        for (std::size_t i = 0; i < results->size(); ++i) {
            const std::string path = "response.MetricDataResults[" + std::to_string(i) + "]";
            const auto& r = as_object((*results)[i], path);
            const auto status = detail::opt_string(r, "StatusCode", path);
            if (status == "Forbidden" || status == "InternalError") {
                std::string text;
                if (const auto* ms = detail::opt_array(r, "Messages", path))
                    for (const auto& m : *ms)
                        if (const auto* mo = m.if_object())
                            if (const auto* v = mo->if_contains("Value"); v && v->is_string())
                                text += (text.empty() ? "" : "; ") + std::string(v->get_string());
                return make_error("cloudwatch_error",
                                  "cloudwatch query error: " + status + (text.empty() ? "" : ": " + text));
            }
            const auto label = detail::opt_string(r, "Label", path);
            // "<pod> <container>": the last two words (neither name has a space).
            const auto last = label.find_last_of(' ');
            const std::string container = last == std::string::npos ? label : label.substr(last + 1);
            const std::string before = last == std::string::npos ? "" : label.substr(0, last);
            const std::string pod =
                before.substr(before.find_last_of(' ') == std::string::npos ? 0 : before.find_last_of(' ') + 1);
            if (!pod_prefix_.empty() && !pod.starts_with(pod_prefix_)) continue;
            const auto* ts = detail::opt_array(r, "Timestamps", path);
            const auto* vs = detail::opt_array(r, "Values", path);
            if (!ts || !vs) fail(path, "expected Timestamps and Values");
            if (ts->size() != vs->size()) fail(path, "Timestamps and Values differ in length");
            auto it = by_label_.find(label);
            if (it == by_label_.end()) {
                ++response_.series_total;
                if (limits_.max_series != 0 && response_.series.size() >= limits_.max_series) {
                    response_.series_capped = true;
                    continue;
                }
                PromSeries s;
                s.labels.emplace("container", container);
                s.labels.emplace("pod", pod);
                response_.series.push_back(std::move(s));
                it = by_label_.emplace(label, response_.series.size() - 1).first;
            }
            auto& series = response_.series[it->second];
            for (std::size_t k = 0; k < ts->size(); ++k) {
                UsageSample u;
                u.timestamp = detail::as_number((*ts)[k], path + ".Timestamps[" + std::to_string(k) + "]");
                u.value = detail::as_number((*vs)[k], path + ".Values[" + std::to_string(k) + "]") / divide_by_;
                cap_.add(series, u);
            }
        }
        response_.samples_capped = cap_.capped;
        ++pages_;
        return detail::opt_string(o, "NextToken", "response");
    } catch (const detail::DecodeFailure& e) {
        return make_error("invalid_response", e.what());
    }
}

CloudWatchError cloudwatch_error(std::string_view body, std::string_view query_error_header) {
    CloudWatchError e;
    boost::system::error_code ec;
    const json::value root = json::parse(body, ec);
    if (!ec && root.is_object()) {
        const auto& o = root.get_object();
        if (const auto* t = o.if_contains("__type"); t && t->is_string()) {
            const std::string_view type = t->get_string();
            e.code = std::string(type.substr(type.find('#') == std::string_view::npos ? 0 : type.find('#') + 1));
        }
        for (const char* key : {"message", "Message"})
            if (const auto* m = o.if_contains(key); m && m->is_string() && e.message.empty())
                e.message = std::string(m->get_string());
    }
    if (e.code.empty() && !query_error_header.empty())
        e.code = std::string(query_error_header.substr(0, query_error_header.find(';')));
    return e;
}

bool cloudwatch_throttled(unsigned status, std::string_view code) {
    static constexpr std::array<std::string_view, 7> kCodes = {"Throttling",
                                                               "ThrottlingException",
                                                               "ThrottledException",
                                                               "RequestThrottledException",
                                                               "TooManyRequestsException",
                                                               "RequestLimitExceeded",
                                                               "RequestThrottled"};
    return status == 429 || std::find(kCodes.begin(), kCodes.end(), code) != kCodes.end();
}

bool cloudwatch_auth_error(unsigned status, std::string_view code) {
    static constexpr std::array<std::string_view, 10> kCodes = {"SignatureDoesNotMatch", "InvalidSignatureException",
                                                                "IncompleteSignature",   "UnrecognizedClientException",
                                                                "InvalidClientTokenId",  "ExpiredToken",
                                                                "ExpiredTokenException", "AccessDenied",
                                                                "AccessDeniedException", "MissingAuthenticationToken"};
    return status == 401 || status == 403 || std::find(kCodes.begin(), kCodes.end(), code) != kCodes.end();
}

std::chrono::milliseconds cloudwatch_retry_delay(int attempt, double jitter) {
    constexpr double kMaxSeconds = 20;
    const double j = std::isfinite(jitter) ? std::clamp(jitter, 0.0, 1.0) : 1.0;
    const double s = std::min(j * std::pow(2.0, std::clamp(attempt, 0, 30)), kMaxSeconds);
    return std::chrono::milliseconds(static_cast<long long>(s * 1000));
}

}  // namespace attune::core
