#pragma once
// status.resizeHistory (docs/api.md#attunepolicy-status): one entry per action, at most 50,
// oldest dropped. Plain values with the JSON the status subresource holds.
#include <boost/json/array.hpp>
#include <boost/json/value.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/model/pod_model.hpp"
#include "attune/core/model/readable_units.hpp"
#include "attune/core/util/result.hpp"
#include "attune/core/util/timestamp.hpp"

namespace attune::core {

inline constexpr std::size_t kMaxResizeHistory = 50;

enum class HistoryResource { Cpu, Memory, CpuAndMemory, Template };
enum class HistoryMethod { InPlace, Eviction, TemplatePersistence };
// Held: not sent, a gate or the planner held it back (the reason says which);
// Failed: sent, and refused or failed.
enum class HistoryResult { Success, Failed, Reverted, Evicted, TemplatePatched, Held };

std::string_view history_resource_name(HistoryResource r) noexcept;  // cpu, memory, cpu+memory, template
std::string_view history_method_name(HistoryMethod m) noexcept;
std::string_view history_result_name(HistoryResult r) noexcept;

// Revert and failure reasons: oomkill, restart, notready, throttle,
// slo:<name>, infeasible, re-fetch-failed, annotation-persist-failed,
// annotation-persist-conflict; plus Attune's skip reasons (envelope_constraint, ...).
// Template entries carry the persistence mode or the error.
struct HistoryEntry {
    Timestamp timestamp;
    std::string workload;
    std::string container;
    std::string from;
    std::string to;
    HistoryResource resource = HistoryResource::CpuAndMemory;
    HistoryMethod method = HistoryMethod::InPlace;
    HistoryResult result = HistoryResult::Success;
    std::string reason;
    friend bool operator==(const HistoryEntry&, const HistoryEntry&) = default;
};

// Which resources changed between `from` and `to` (cpu, memory or both);
// nullopt when neither did.
std::optional<HistoryResource> changed_resources(const ResourceRequirements& from, const ResourceRequirements& to);

// "500m" (request only), "500m/1" (request/limit), for the entry's resource;
// "cpu 500m/1, memory 256Mi" for cpu+memory. Exact: the quantities as the
// pod spec holds them (status.resizeHistory's from/to); Readable: as people
// read them (Events), "500m/1000m", "cpu 500m, memory 234Mi".
std::string describe_resources(const ResourceRequirements& rr, HistoryResource resource,
                               NumberStyle style = NumberStyle::Exact);

// An entry's from/to text (describe_resources' Exact words) with its numbers
// as people read them (docs/cli.md#numbers-in-text-output): "500m/1" ->
// "500m/1000m", "cpu 1, memory 245354614/512Mi" -> "cpu 1000m, memory
// 234Mi/512Mi", and a template entry's "app: cpu ..., memory ...; ..." alike.
// `resource` is the entry's (history_resource_name); a word that is not a
// quantity comes back as it is.
std::string readable_history_text(std::string_view resource, std::string_view text);

// Appends, dropping the oldest beyond kMaxResizeHistory.
void append_history(std::vector<HistoryEntry>& history, HistoryEntry entry);

// Newest first, the number of InPlace/Eviction entries that are Reverted
// before the first Success (template entries and failures do not count or
// stop it). Drives the cooldown backoff.
int count_consecutive_reverts(std::span<const HistoryEntry> history);

// Degraded=True HighRevertRate: at least 3 of the last 5 entries Reverted.
bool high_revert_rate(std::span<const HistoryEntry> history);

boost::json::value history_entry_json(const HistoryEntry& e);
boost::json::array history_json(std::span<const HistoryEntry> history);
// Error "invalid_history" naming the index and field.
Result<std::vector<HistoryEntry>> decode_history(const boost::json::value& json);

}  // namespace attune::core
