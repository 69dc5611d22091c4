#include "attune/core/recommend/savings.hpp"

#include <cmath>
#include <cstdio>

namespace attune::core {

RequestSavings& RequestSavings::operator+=(const RequestSavings& o) {
    cpu_total_milli += o.cpu_total_milli;
    memory_total_bytes += o.memory_total_bytes;
    cpu_reduction_milli += o.cpu_reduction_milli;
    memory_reduction_bytes += o.memory_reduction_bytes;
    cpu_increase_milli += o.cpu_increase_milli;
    memory_increase_bytes += o.memory_increase_bytes;
    containers += o.containers;
    return *this;
}

void add_savings(RequestSavings& into, const WorkloadRecommendation& rec) {
    for (const auto& c : rec.containers) {
        const std::int64_t cpu_now = c.current.cpu_request.milli_value();
        const std::int64_t mem_now = c.current.memory_request.value();
        const std::int64_t cpu_diff = cpu_now - c.recommended.cpu_request.milli_value();
        const std::int64_t mem_diff = mem_now - c.recommended.memory_request.value();
        into.cpu_total_milli += cpu_now;
        into.memory_total_bytes += mem_now;
        if (cpu_diff > 0) into.cpu_reduction_milli += cpu_diff;
        else into.cpu_increase_milli -= cpu_diff;
        if (mem_diff > 0) into.memory_reduction_bytes += mem_diff;
        else into.memory_increase_bytes -= mem_diff;
        ++into.containers;
    }
}

double monthly_cost(std::int64_t cpu_milli, std::int64_t memory_bytes, const CostPricing& pricing) {
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
    const double cores = static_cast<double>(cpu_milli) / 1000.0;
    const double gib = static_cast<double>(memory_bytes) / kGiB;
    return (cores * pricing.cpu_per_core_hour + gib * pricing.memory_per_gib_hour) * kHoursPerMonth;
}

std::string format_money(double dollars) {
    if (!std::isfinite(dollars)) return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, "$%.2f", dollars);
    return buf;
}

boost::json::object savings_status_json(const RequestSavings& s, const CostPricing& pricing) {
    boost::json::object o;
    auto cpu = [&](const char* key, std::int64_t milli) {
        if (milli > 0) o[key] = Quantity::from_milli(milli, Quantity::Format::DecimalSI).to_string();
    };
    auto memory = [&](const char* key, std::int64_t bytes) {
        if (bytes > 0) o[key] = Quantity::from_value(bytes, Quantity::Format::BinarySI).to_string();
    };
    cpu("cpuRequestTotal", s.cpu_total_milli);
    memory("memoryRequestTotal", s.memory_total_bytes);
    cpu("cpuRequestReduction", s.cpu_reduction_milli);
    cpu("reclaimedCpuRequest", s.cpu_reduction_milli);
    memory("memoryRequestReduction", s.memory_reduction_bytes);
    memory("reclaimedMemoryRequest", s.memory_reduction_bytes);
    cpu("cpuRequestIncrease", s.cpu_increase_milli);
    memory("memoryRequestIncrease", s.memory_increase_bytes);
    if (const double m = monthly_cost(s.cpu_reduction_milli, s.memory_reduction_bytes, pricing); m > 0)
        o["estimatedMonthlySavings"] = format_money(m);
    if (const double m = monthly_cost(s.cpu_increase_milli, s.memory_increase_bytes, pricing); m > 0)
        o["estimatedMonthlyCostIncrease"] = format_money(m);
    return o;
}

}  // namespace attune::core
