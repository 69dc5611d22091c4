// libFuzzer target: Prometheus /api/v1/query(_range) answers through the
// core's decoder and the per-container grouping, with small caps so they
// are exercised. Nothing may crash, and what comes out must keep the
// decoder's promises: no non-finite sample, and the caps hold.
#include <attune/core/recommend/prometheus_response.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    attune::core::PromDecodeLimits limits;
    limits.max_series = 8;
    limits.max_samples = 64;
    const auto r = attune::core::decode_prometheus_response(
        std::string_view(reinterpret_cast<const char*>(data), size), limits);
    if (!r.ok()) return 0;
    std::size_t samples = 0;
    if (r.value().series.size() > limits.max_series) __builtin_trap();
    for (const auto& s : r.value().series) {
        for (const auto& u : s.samples)
            if (!std::isfinite(u.value) || !std::isfinite(u.timestamp)) __builtin_trap();
        samples += s.samples.size();
    }
    if (samples > limits.max_samples) __builtin_trap();
    for (const auto& [label, g] : attune::core::group_by_label(r.value(), "container"))
        if (g.samples.size() > samples) __builtin_trap();
    return 0;
}
