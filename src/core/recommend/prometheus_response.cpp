#include "attune/core/recommend/prometheus_response.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "../util/json_decode.hpp"

namespace attune::core {

namespace json = boost::json;
using detail::as_object;
using detail::fail;

namespace {

// Prometheus writes sample values as strings: "1.5", "NaN", "+Inf", "-Inf".
double sample_value(const json::value& v, const std::string& path) {
    if (!v.is_string()) return detail::as_number(v, path);
    std::string_view s = v.get_string();
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    double d = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
    if (ec != std::errc{} || p != s.data() + s.size() || s.empty())
        fail(path, "sample value \"" + std::string(v.get_string()) + "\" is not a number");
    return d;
}

// [timestamp, "value"]
UsageSample decode_pair(const json::value& v, const std::string& path) {
    if (!v.is_array() || v.get_array().size() != 2) fail(path, "expected [timestamp, \"value\"]");
    const auto& a = v.get_array();
    UsageSample out;
    out.timestamp = detail::as_number(a[0], path + "[0]");
    out.value = sample_value(a[1], path + "[1]");
    return out;
}

struct Decoder {
    const PromDecodeLimits& limits;
    SampleCap cap{limits.max_samples};

    void add(PromSeries& s, const json::value& pair, const std::string& path) { cap.add(s, decode_pair(pair, path)); }

    PromSeries series(const json::value& v, const std::string& path, bool matrix) {
        const auto& o = as_object(v, path);
        PromSeries s;
        if (const auto* m = detail::opt_object(o, "metric", path)) {
            for (const auto& [k, val] : *m) {
                if (!val.is_string()) fail(path + ".metric." + std::string(k), "expected a string");
                s.labels.emplace(std::string(k), std::string(val.get_string()));
            }
        }
        if (matrix) {
            if (const auto* values = detail::opt_array(o, "values", path)) {
                s.samples.reserve(values->size());
                for (std::size_t i = 0; i < values->size(); ++i)
                    add(s, (*values)[i], path + ".values[" + std::to_string(i) + "]");
            }
        } else {
            const auto* value = detail::field(o, "value");
            if (!value) fail(path + ".value", "missing");
            add(s, *value, path + ".value");
        }
        return s;
    }
};

// Indices of the series to keep: one per distinct label value first, then
// the rest in order, up to the cap.
std::vector<std::size_t> capped_order(const json::array& result, const PromDecodeLimits& limits) {
    std::vector<std::size_t> keep;
    std::vector<bool> taken(result.size(), false);
    std::set<std::string, std::less<>> seen;
    for (std::size_t i = 0; i < result.size() && keep.size() < limits.max_series; ++i) {
        std::string value;
        if (const auto* o = result[i].if_object())
            if (const auto* m = o->if_contains("metric"); m && m->is_object())
                if (const auto* l = m->get_object().if_contains(limits.prefer_distinct_label); l && l->is_string())
                    value = std::string(l->get_string());
        if (seen.insert(value).second) {
            keep.push_back(i);
            taken[i] = true;
        }
    }
    for (std::size_t i = 0; i < result.size() && keep.size() < limits.max_series; ++i)
        if (!taken[i]) keep.push_back(i);
    std::sort(keep.begin(), keep.end());
    return keep;
}

PromResponse decode(const json::value& root, const PromDecodeLimits& limits) {
    const auto& o = as_object(root, "response");
    const std::string status = detail::opt_string(o, "status", "response");
    PromResponse r;
    if (const auto* w = detail::opt_array(o, "warnings", "response"))
        for (const auto& x : *w)
            if (x.is_string()) r.warnings.emplace_back(x.get_string());
    if (status != "success") fail("response.status", "expected \"success\" or \"error\", got \"" + status + "\"");
    const auto* data = detail::opt_object(o, "data", "response");
    if (!data) fail("response.data", "missing");
    r.result_type = detail::opt_string(*data, "resultType", "response.data");
    const auto* result = detail::field(*data, "result");
    if (!result) fail("response.data.result", "missing");
    Decoder d{limits};
    if (r.result_type == "scalar") {
        PromSeries s;
        d.add(s, *result, "response.data.result");
        r.series.push_back(std::move(s));
        r.series_total = 1;
    } else if (r.result_type == "matrix" || r.result_type == "vector") {
        if (!result->is_array()) fail("response.data.result", "expected an array");
        const auto& arr = result->get_array();
        r.series_total = arr.size();
        const bool matrix = r.result_type == "matrix";
        if (limits.max_series != 0 && arr.size() > limits.max_series) {
            r.series_capped = true;
            for (const std::size_t i : capped_order(arr, limits))
                r.series.push_back(d.series(arr[i], "response.data.result[" + std::to_string(i) + "]", matrix));
        } else {
            r.series.reserve(arr.size());
            for (std::size_t i = 0; i < arr.size(); ++i)
                r.series.push_back(d.series(arr[i], "response.data.result[" + std::to_string(i) + "]", matrix));
        }
    } else {
        fail("response.data.resultType", "expected matrix, vector or scalar, got \"" + r.result_type + "\"");
    }
    r.samples_capped = d.cap.capped;
    return r;
}

}  // namespace

void SampleCap::add(PromSeries& series, const UsageSample& sample) {
    if (!std::isfinite(sample.value) || !std::isfinite(sample.timestamp)) {
        ++series.non_finite_dropped;
        return;
    }
    if (max != 0 && taken >= max) {
        capped = true;
        return;
    }
    ++taken;
    series.samples.push_back(sample);
}

Result<PromResponse> decode_prometheus_response(std::string_view body, const PromDecodeLimits& limits) {
    boost::system::error_code ec;
    const json::value root = json::parse(body, ec);
    if (ec) return make_error("invalid_response", "prometheus answered something that is not JSON: " + ec.message());
    if (const auto* o = root.if_object()) {
        if (const auto* s = o->if_contains("status"); s && s->is_string() && s->get_string() == "error") {
            auto text = [&](std::string_view k) {
                const auto* v = o->if_contains(k);
                return v && v->is_string() ? std::string(v->get_string()) : std::string();
            };
            return make_error("prometheus_error", "prometheus error (" + text("errorType") + "): " + text("error"));
        }
    }
    try {
        return decode(root, limits);
    } catch (const detail::DecodeFailure& e) {
        return make_error("invalid_response", e.what());
    }
}

std::map<std::string, GroupedSamples, std::less<>> group_by_label(const PromResponse& r, std::string_view label) {
    std::map<std::string, GroupedSamples, std::less<>> out;
    for (const auto& s : r.series) {
        const auto it = s.labels.find(label);
        auto& g = out[it == s.labels.end() ? std::string() : it->second];
        g.samples.insert(g.samples.end(), s.samples.begin(), s.samples.end());
        g.non_finite_dropped += s.non_finite_dropped;
        ++g.series;
    }
    return out;
}

}  // namespace attune::core
