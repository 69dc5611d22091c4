#include "savings_records.hpp"

#include "object_fields.hpp"

#include <attune/core/model/readable_units.hpp>
#include <attune/core/recommend/recommendation_status.hpp>
#include <attune/core/util/json_path.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace attune::cli {
namespace json = boost::json;

namespace {

std::string cpu_text(std::int64_t milli) { return core::readable_cpu(core::Quantity::from_milli(milli)); }
std::string memory_text(std::int64_t bytes) {
    return core::readable_memory(core::Quantity::from_value(bytes, core::Quantity::Format::BinarySI));
}
std::string cpu_quantity(std::int64_t milli) { return core::Quantity::from_milli(milli).to_string(); }
std::string memory_quantity(std::int64_t bytes) {
    return core::Quantity::from_value(bytes, core::Quantity::Format::BinarySI).to_string();
}

// Exact sums and their text, for a policy and for the total alike.
void put_figures(json::object& r, const core::RequestSavings& s, double monthly_savings, double monthly_increase) {
    r["containers"] = s.containers;
    r["cpuRequestTotal"] = cpu_quantity(s.cpu_total_milli);
    r["memoryRequestTotal"] = memory_quantity(s.memory_total_bytes);
    r["cpuRequestReduction"] = cpu_quantity(s.cpu_reduction_milli);
    r["memoryRequestReduction"] = memory_quantity(s.memory_reduction_bytes);
    r["cpuRequestIncrease"] = cpu_quantity(s.cpu_increase_milli);
    r["memoryRequestIncrease"] = memory_quantity(s.memory_increase_bytes);
    r["estimatedMonthlySavings"] = monthly_savings;
    r["estimatedMonthlyCostIncrease"] = monthly_increase;
    if (s.containers == 0) {
        // Nothing recommended yet: nothing to estimate (the Go plugin's "-").
        for (const char* k : {"cpuSaved", "memorySaved", "percentSaved", "monthlySavings", "cpuIncrease",
                              "memoryIncrease", "monthlyCostIncrease"})
            r[k] = "-";
        return;
    }
    r["cpuSaved"] = cpu_text(s.cpu_reduction_milli);
    r["memorySaved"] = memory_text(s.memory_reduction_bytes);
    r["percentSaved"] = s.cpu_total_milli > 0 ? core::readable_percent(static_cast<double>(s.cpu_reduction_milli) /
                                                                       static_cast<double>(s.cpu_total_milli))
                                              : "-";
    r["monthlySavings"] = core::format_money(monthly_savings);
    r["cpuIncrease"] = cpu_text(s.cpu_increase_milli);
    r["memoryIncrease"] = memory_text(s.memory_increase_bytes);
    r["monthlyCostIncrease"] = core::format_money(monthly_increase);
}

core::RequestSavings figures_of(const json::value& r) {
    core::RequestSavings s;
    auto milli = [&](const char* k) {
        auto q = core::Quantity::parse(core::string_at(r, {k}));
        return q ? q.value().milli_value() : 0;
    };
    auto bytes = [&](const char* k) {
        auto q = core::Quantity::parse(core::string_at(r, {k}));
        return q ? q.value().value() : 0;
    };
    s.containers = static_cast<int>(core::int_at(r, {"containers"}).value_or(0));
    s.cpu_total_milli = milli("cpuRequestTotal");
    s.memory_total_bytes = bytes("memoryRequestTotal");
    s.cpu_reduction_milli = milli("cpuRequestReduction");
    s.memory_reduction_bytes = bytes("memoryRequestReduction");
    s.cpu_increase_milli = milli("cpuRequestIncrease");
    s.memory_increase_bytes = bytes("memoryRequestIncrease");
    return s;
}

// A price as its decimal: 0.031, 0.05 (six significant figures, no exponent for real prices).
std::string price_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

}  // namespace

core::Result<json::object> savings_record(const json::value& policy, const core::EffectivePolicy* effective) {
    auto recs = core::decode_status_recommendations(policy);
    if (!recs) return recs.error();
    const core::CostPricing pricing = effective ? effective->cost_pricing : core::CostPricing{};
    core::RequestSavings s;
    for (const auto& r : recs.value()) core::add_savings(s, r.recommendation);
    json::object out;
    out["namespace"] = core::string_at(policy, {"metadata", "namespace"});
    out["name"] = core::string_at(policy, {"metadata", "name"});
    out["creationTimestamp"] = core::string_at(policy, {"metadata", "creationTimestamp"});
    out["workloads"] = static_cast<std::int64_t>(recs.value().size());
    put_figures(out, s, core::monthly_cost(s.cpu_reduction_milli, s.memory_reduction_bytes, pricing),
                core::monthly_cost(s.cpu_increase_milli, s.memory_increase_bytes, pricing));
    out["pricing"] = json::object{{"cpuPerCoreHour", pricing.cpu_per_core_hour},
                                  {"memoryPerGiBHour", pricing.memory_per_gib_hour},
                                  {"source", effective ? "effective" : "built-in"}};
    out["pricingText"] =
        "$" + price_text(pricing.cpu_per_core_hour) + "/core-h, $" + price_text(pricing.memory_per_gib_hour) + "/GiB-h";
    out["savings"] = core::savings_status_json(s, pricing);
    return out;
}

json::object savings_total(const json::array& records) {
    core::RequestSavings s;
    double saved = 0, increase = 0;
    std::int64_t workloads = 0;
    for (const auto& r : records) {
        s += figures_of(r);
        saved += number_at(r, "estimatedMonthlySavings");
        increase += number_at(r, "estimatedMonthlyCostIncrease");
        workloads += core::int_at(r, {"workloads"}).value_or(0);
    }
    json::object out;
    out["namespace"] = "";
    out["name"] = "TOTAL";
    out["policies"] = static_cast<std::int64_t>(records.size());
    out["workloads"] = workloads;
    put_figures(out, s, saved, increase);
    return out;
}

std::vector<Column> savings_columns(bool all_namespaces) {
    std::vector<Column> c;
    if (all_namespaces) c.push_back({"NAMESPACE", "namespace"});
    c.insert(c.end(), {{"NAME", "name"},
                       {"WORKLOADS", "workloads"},
                       {"CPU SAVED", "cpuSaved"},
                       {"MEMORY SAVED", "memorySaved"},
                       {"% CPU SAVED", "percentSaved"},
                       {"EST. MONTHLY", "monthlySavings"},
                       {"CPU INCREASE", "cpuIncrease", true},
                       {"MEMORY INCREASE", "memoryIncrease", true},
                       {"EST. MONTHLY INCREASE", "monthlyCostIncrease", true},
                       {"PRICING", "pricingText", true}});
    return c;
}

core::Result<std::vector<std::size_t>> savings_order(const json::array& records, std::string_view sort_by,
                                                     bool all_namespaces) {
    std::vector<std::size_t> order(records.size());
    std::iota(order.begin(), order.end(), 0);
    auto by = [&](auto less) {
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return less(records[a], records[b]); });
        return order;
    };
    const auto str = [](const json::value& r, const char* k) { return core::string_at(r, {k}); };
    if (sort_by == "name")
        return by([&](const json::value& a, const json::value& b) { return str(a, "name") < str(b, "name"); });
    if (sort_by == "namespace")
        return by([&](const json::value& a, const json::value& b) {
            return std::pair{str(a, "namespace"), str(a, "name")} < std::pair{str(b, "namespace"), str(b, "name")};
        });
    if (sort_by == "age")
        return by([&](const json::value& a, const json::value& b) {
            return str(a, "creationTimestamp") < str(b, "creationTimestamp");
        });
    if (sort_by == "savings")
        return by([&](const json::value& a, const json::value& b) {
            return number_at(a, "estimatedMonthlySavings") > number_at(b, "estimatedMonthlySavings");
        });
    const auto cols = savings_columns(all_namespaces);
    return sort_order(records, cols, sort_by);
}

}  // namespace attune::cli
