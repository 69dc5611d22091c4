#include "attune/core/recommend/datadog_response.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

#include "../util/json_decode.hpp"
#include "attune/core/recommend/datadog_query.hpp"

namespace attune::core {

namespace json = boost::json;
using detail::as_object;
using detail::fail;

namespace {

// {"errors":["..."]}: Datadog's error answers (403, 400, 429 ...).
std::string errors_text(const json::object& o) {
    const auto* errors = o.if_contains("errors");
    if (!errors || !errors->is_array()) return {};
    std::string out;
    for (const auto& e : errors->get_array()) {
        if (!e.is_string()) continue;
        if (!out.empty()) out += "; ";
        out += e.get_string();
    }
    return out;
}

std::string container_of(const json::array& tags, const std::string& path) {
    const std::string prefix = std::string(kDatadogContainerTag) + ":";
    for (std::size_t i = 0; i < tags.size(); ++i) {
        if (!tags[i].is_string()) fail(path + "[" + std::to_string(i) + "]", "expected a string");
        const std::string_view t = tags[i].get_string();
        if (t.starts_with(prefix)) return std::string(t.substr(prefix.size()));
    }
    return {};
}

struct Decoder {
    const PromDecodeLimits& limits;
    double divide_by = 1;
    SampleCap cap{limits.max_samples};

    void point(PromSeries& s, const json::value& v, const std::string& path) {
        if (!v.is_array() || v.get_array().size() != 2) fail(path, "expected [milliseconds, value]");
        const auto& a = v.get_array();
        const double ms = detail::as_number(a[0], path + "[0]");
        if (a[1].is_null()) return;  // no data in this rollup interval
        UsageSample u;
        u.timestamp = ms / 1000.0;
        u.value = detail::as_number(a[1], path + "[1]") / divide_by;
        cap.add(s, u);
    }

    PromSeries series(const json::value& v, const std::string& path) {
        const auto& o = as_object(v, path);
        PromSeries s;
        std::string container;
        if (const auto* tags = detail::opt_array(o, "tag_set", path))
            container = container_of(*tags, path + ".tag_set");
        s.labels.emplace("container", std::move(container));
        if (auto scope = detail::opt_string(o, "scope", path); !scope.empty())
            s.labels.emplace("scope", std::move(scope));
        const auto* points = detail::opt_array(o, "pointlist", path);
        if (!points) fail(path + ".pointlist", "missing");
        s.samples.reserve(points->size());
        for (std::size_t i = 0; i < points->size(); ++i)
            point(s, (*points)[i], path + ".pointlist[" + std::to_string(i) + "]");
        return s;
    }
};

PromResponse decode(const json::value& root, ResourceKind resource, const PromDecodeLimits& limits) {
    const auto& o = as_object(root, "response");
    const std::string status = detail::opt_string(o, "status", "response");
    if (status != "ok") fail("response.status", "expected \"ok\" or \"error\", got \"" + status + "\"");
    const auto* series = detail::opt_array(o, "series", "response");
    if (!series) fail("response.series", "missing");
    PromResponse r;
    r.result_type = "matrix";
    r.series_total = series->size();
    Decoder d{limits, resource == ResourceKind::Cpu ? kNanocoresPerCore : 1.0};
    std::size_t n = series->size();
    if (limits.max_series != 0 && n > limits.max_series) {
        r.series_capped = true;
        n = limits.max_series;  // one series per container already: the first ones, in answer order
    }
    r.series.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
        r.series.push_back(d.series((*series)[i], "response.series[" + std::to_string(i) + "]"));
    if (auto message = detail::opt_string(o, "message", "response"); !message.empty())
        r.warnings.push_back(std::move(message));
    r.samples_capped = d.cap.capped;
    return r;
}

}  // namespace

Result<PromResponse> decode_datadog_response(std::string_view body, ResourceKind resource,
                                             const PromDecodeLimits& limits) {
    boost::system::error_code ec;
    const json::value root = json::parse(body, ec);
    if (ec) return make_error("invalid_response", "datadog answered something that is not JSON: " + ec.message());
    if (const auto* o = root.if_object()) {
        if (const auto* s = o->if_contains("status"); s && s->is_string() && s->get_string() == "error") {
            const auto* e = o->if_contains("error");
            return make_error("datadog_error",
                              "datadog query error: " + (e && e->is_string() ? std::string(e->get_string())
                                                                             : std::string("(no error text)")));
        }
        if (auto text = errors_text(*o); !text.empty())
            return make_error("datadog_error", "datadog query error: " + text);
    }
    try {
        return decode(root, resource, limits);
    } catch (const detail::DecodeFailure& e) {
        return make_error("invalid_response", e.what());
    }
}

namespace {
std::optional<long long> whole_seconds(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    long long v = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc{} || p != text.data() + text.size() || v < 0) return std::nullopt;
    return v;
}
}  // namespace

std::chrono::seconds datadog_rate_limit_wait(std::string_view reset_header, std::string_view period_header) {
    constexpr long long kMax = 3600;
    auto v = whole_seconds(reset_header);
    if (!v) v = whole_seconds(period_header);
    if (!v) return kDatadogDefaultRateLimitWait;
    return std::chrono::seconds(std::clamp<long long>(*v, 1, kMax));
}

std::string datadog_error_text(std::string_view body) {
    boost::system::error_code ec;
    const json::value root = json::parse(body, ec);
    if (ec || !root.is_object()) return {};
    return errors_text(root.get_object());
}

}  // namespace attune::core
