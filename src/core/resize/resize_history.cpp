#include "attune/core/resize/resize_history.hpp"

#include <boost/json.hpp>

#include "../util/json_decode.hpp"

namespace attune::core {
namespace {

template <class E, std::size_t N>
std::optional<E> from_name(std::string_view name, std::string_view (*to_name)(E) noexcept, const E (&all)[N]) {
    for (E e : all)
        if (to_name(e) == name) return e;
    return std::nullopt;
}

constexpr HistoryResource kResources[] = {HistoryResource::Cpu, HistoryResource::Memory, HistoryResource::CpuAndMemory,
                                          HistoryResource::Template};
constexpr HistoryMethod kMethods[] = {HistoryMethod::InPlace, HistoryMethod::Eviction, HistoryMethod::TemplatePersistence};
constexpr HistoryResult kResults[] = {HistoryResult::Success, HistoryResult::Failed,          HistoryResult::Reverted,
                                      HistoryResult::Evicted, HistoryResult::TemplatePatched, HistoryResult::Held};

bool differs(const ResourceRequirements& a, const ResourceRequirements& b, std::string_view r) {
    const Quantity* ar = find(a.requests, r);
    const Quantity* br = find(b.requests, r);
    const Quantity* al = find(a.limits, r);
    const Quantity* bl = find(b.limits, r);
    auto ne = [](const Quantity* x, const Quantity* y) { return (x == nullptr) != (y == nullptr) || (x && *x != *y); };
    return ne(ar, br) || ne(al, bl);
}

std::string one(const ResourceRequirements& rr, std::string_view r, NumberStyle style) {
    const auto text = [&](const Quantity& q) {
        return style == NumberStyle::Exact ? q.to_string() : readable_quantity(r, q);
    };
    const Quantity* req = find(rr.requests, r);
    const Quantity* lim = find(rr.limits, r);
    std::string s = req ? text(*req) : "-";
    if (lim) s += "/" + text(*lim);
    return s;
}

// "request/limit", each part readable. "-" (one's "no request") stays: it
// parses as 0, as upstream's parser reads a bare sign.
std::string readable_side(std::string_view resource, std::string_view side) {
    std::string out;
    for (std::size_t start = 0;;) {
        const auto slash = side.find('/', start);
        const auto part = side.substr(start, slash == std::string_view::npos ? slash : slash - start);
        out += part == "-" ? std::string(part) : readable_quantity(resource, part);
        if (slash == std::string_view::npos) return out;
        out += '/';
        start = slash + 1;
    }
}

}  // namespace

std::string_view history_resource_name(HistoryResource r) noexcept {
    switch (r) {
        case HistoryResource::Cpu: return "cpu";
        case HistoryResource::Memory: return "memory";
        case HistoryResource::CpuAndMemory: return "cpu+memory";
        case HistoryResource::Template: return "template";
    }
    return "cpu+memory";
}

std::string_view history_method_name(HistoryMethod m) noexcept {
    switch (m) {
        case HistoryMethod::InPlace: return "InPlace";
        case HistoryMethod::Eviction: return "Eviction";
        case HistoryMethod::TemplatePersistence: return "TemplatePersistence";
    }
    return "InPlace";
}

std::string_view history_result_name(HistoryResult r) noexcept {
    switch (r) {
        case HistoryResult::Success: return "Success";
        case HistoryResult::Failed: return "Failed";
        case HistoryResult::Reverted: return "Reverted";
        case HistoryResult::Evicted: return "Evicted";
        case HistoryResult::TemplatePatched: return "TemplatePatched";
        case HistoryResult::Held: return "Held";
    }
    return "Failed";
}

std::optional<HistoryResource> changed_resources(const ResourceRequirements& from, const ResourceRequirements& to) {
    const bool cpu = differs(from, to, kCpu);
    const bool mem = differs(from, to, kMemory);
    if (cpu && mem) return HistoryResource::CpuAndMemory;
    if (cpu) return HistoryResource::Cpu;
    if (mem) return HistoryResource::Memory;
    return std::nullopt;
}

std::string describe_resources(const ResourceRequirements& rr, HistoryResource resource, NumberStyle style) {
    switch (resource) {
        case HistoryResource::Cpu: return one(rr, kCpu, style);
        case HistoryResource::Memory: return one(rr, kMemory, style);
        case HistoryResource::CpuAndMemory:
        case HistoryResource::Template: return "cpu " + one(rr, kCpu, style) + ", memory " + one(rr, kMemory, style);
    }
    return {};
}

std::string readable_history_text(std::string_view resource, std::string_view text) {
    if (resource == kCpu || resource == kMemory) return readable_side(resource, text);
    // Word by word: the word after "cpu" or "memory" is that resource's
    // "request/limit", up to the "," or ";" that ends it.
    std::string out;
    std::string_view value_of;
    for (std::size_t start = 0; start <= text.size();) {
        auto end = text.find(' ', start);
        if (end == std::string_view::npos) end = text.size();
        const auto word = text.substr(start, end - start);
        if (!value_of.empty()) {
            auto n = word.size();
            while (n > 0 && (word[n - 1] == ',' || word[n - 1] == ';')) --n;
            out += readable_side(value_of, word.substr(0, n));
            out += word.substr(n);
            value_of = {};
        } else {
            out += word;
            if (word == kCpu || word == kMemory) value_of = word;
        }
        if (end < text.size()) out += ' ';
        start = end + 1;
    }
    return out;
}

void append_history(std::vector<HistoryEntry>& history, HistoryEntry entry) {
    history.push_back(std::move(entry));
    if (history.size() > kMaxResizeHistory)
        history.erase(history.begin(), history.begin() + static_cast<std::ptrdiff_t>(history.size() - kMaxResizeHistory));
}

int count_consecutive_reverts(std::span<const HistoryEntry> history) {
    int n = 0;
    for (auto it = history.rbegin(); it != history.rend(); ++it) {
        if (it->method == HistoryMethod::TemplatePersistence) continue;
        if (it->result == HistoryResult::Success) break;
        if (it->result == HistoryResult::Reverted) ++n;
    }
    return n;
}

bool high_revert_rate(std::span<const HistoryEntry> history) {
    const std::size_t from = history.size() > 5 ? history.size() - 5 : 0;
    int reverts = 0;
    for (std::size_t i = from; i < history.size(); ++i) reverts += history[i].result == HistoryResult::Reverted;
    return reverts >= 3;
}

boost::json::value history_entry_json(const HistoryEntry& e) {
    boost::json::object o{{"timestamp", format_timestamp(e.timestamp)},
                          {"workload", e.workload},
                          {"container", e.container},
                          {"from", e.from},
                          {"to", e.to},
                          {"resource", history_resource_name(e.resource)},
                          {"method", history_method_name(e.method)},
                          {"result", history_result_name(e.result)}};
    if (!e.reason.empty()) o["reason"] = e.reason;
    return o;
}

boost::json::array history_json(std::span<const HistoryEntry> history) {
    boost::json::array a;
    for (const auto& e : history) a.push_back(history_entry_json(e));
    return a;
}

Result<std::vector<HistoryEntry>> decode_history(const boost::json::value& json) {
    using namespace detail;
    try {
        if (!json.is_array()) fail("resizeHistory", "expected an array");
        std::vector<HistoryEntry> out;
        const auto& arr = json.get_array();
        for (std::size_t i = 0; i < arr.size(); ++i) {
            const std::string at = "resizeHistory[" + std::to_string(i) + "]";
            const auto& o = as_object(arr[i], at);
            HistoryEntry e;
            auto ts = parse_timestamp(opt_string(o, "timestamp", at));
            if (!ts.ok()) fail(at + ".timestamp", ts.error().message);
            e.timestamp = ts.value();
            e.workload = opt_string(o, "workload", at);
            e.container = opt_string(o, "container", at);
            e.from = opt_string(o, "from", at);
            e.to = opt_string(o, "to", at);
            e.reason = opt_string(o, "reason", at);
            const auto resource = from_name(opt_string(o, "resource", at), history_resource_name, kResources);
            const auto method = from_name(opt_string(o, "method", at), history_method_name, kMethods);
            const auto res = from_name(opt_string(o, "result", at), history_result_name, kResults);
            if (!resource) fail(at + ".resource", "not one of cpu, memory, cpu+memory, template");
            if (!method) fail(at + ".method", "not one of InPlace, Eviction, TemplatePersistence");
            if (!res) fail(at + ".result", "not one of Success, Failed, Reverted, Evicted, TemplatePatched, Held");
            e.resource = *resource;
            e.method = *method;
            e.result = *res;
            out.push_back(std::move(e));
        }
        return out;
    } catch (const DecodeFailure& e) {
        return make_error("invalid_history", e.what());
    }
}

}  // namespace attune::core
