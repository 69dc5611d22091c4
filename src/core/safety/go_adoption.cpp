#include "attune/core/safety/go_adoption.hpp"

#include <algorithm>
#include <boost/json.hpp>

#include "attune/core/model/label_selector.hpp"
#include "attune/core/policy/annotations.hpp"
#include "attune/core/resize/resize_history.hpp"
#include "attune/core/safety/original_values.hpp"
#include "attune/core/util/json_path.hpp"

namespace attune::core {
namespace json = boost::json;

namespace {

bool is_tracking_key(std::string_view k) {
    if (k.starts_with(kOriginalRestartCountPrefix)) return true;
    if (k.starts_with(kOriginalPrefix)) return k != kOriginalTargetCpuAnnotation;
    return k == kResizedAtAnnotation || k == kResizedWorkloadAnnotation || k == kResizedContainersAnnotation;
}

// resized-containers as the Go operator reads it: split on commas, each name
// trimmed, empty names skipped (internal/controller/safety.go).
std::string tidy_container_list(std::string_view raw) {
    std::string out;
    std::size_t start = 0;
    while (start <= raw.size()) {
        const auto comma = raw.find(',', start);
        auto part = raw.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        while (!part.empty() && (part.front() == ' ' || part.front() == '\t')) part.remove_prefix(1);
        while (!part.empty() && (part.back() == ' ' || part.back() == '\t')) part.remove_suffix(1);
        if (!part.empty()) out += (out.empty() ? "" : ",") + std::string(part);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

// The Go operator's count for the cooldown backoff: the Reverted entries at
// the end of the history, stopping at the first entry of any other result
// (internal/controller/helpers.go, consecutiveReverts).
int go_consecutive_reverts(const std::vector<HistoryEntry>& history) {
    int n = 0;
    for (auto it = history.rbegin(); it != history.rend() && it->result == HistoryResult::Reverted; ++it) ++n;
    return n;
}

json::object& metadata_patch(Adoption& a) {
    auto& m = a.patch["metadata"];
    return m.is_object() ? m.get_object() : m.emplace_object();
}

void note(Adoption& a, std::string field, AdoptAction action, std::string why) {
    a.notes.push_back({std::move(field), action, std::move(why)});
}

void finish(Adoption& a) {
    if (!a.conflict()) return;
    a.patch.clear();
    a.status_patch.clear();
}

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
    return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

}  // namespace

std::string_view adopt_action_name(AdoptAction a) noexcept {
    switch (a) {
        case AdoptAction::Kept: return "kept";
        case AdoptAction::Rewritten: return "rewritten";
        case AdoptAction::Dropped: return "dropped";
        case AdoptAction::Conflict: return "conflict";
    }
    return "kept";
}

bool Adoption::conflict() const noexcept {
    return std::any_of(notes.begin(), notes.end(),
                       [](const AdoptNote& n) { return n.action == AdoptAction::Conflict; });
}

Adoption adopt_go_pod(const json::value& pod) {
    Adoption a;
    auto ann = annotations_of(pod);
    const auto labels = labels_of(pod);
    auto set_annotation = [&](std::string_view key, json::value v) {
        auto& meta = metadata_patch(a);
        auto& an = meta["annotations"];
        if (!an.is_object()) an.emplace_object();
        an.get_object()[key] = std::move(v);
    };
    auto drop_label = [&](std::string_view key) {
        auto& meta = metadata_patch(a);
        auto& l = meta["labels"];
        if (!l.is_object()) l.emplace_object();
        l.get_object()[key] = nullptr;
    };

    const bool tracking = std::any_of(ann.begin(), ann.end(), [](const auto& kv) { return is_tracking_key(kv.first); });
    if (tracking) {
        if (const auto it = ann.find(kResizedContainersAnnotation); it != ann.end()) {
            const std::string tidy = tidy_container_list(it->second);
            if (tidy != it->second) {
                note(a, "annotation " + std::string(kResizedContainersAnnotation), AdoptAction::Rewritten,
                     "\"" + it->second + "\" as \"" + tidy +
                         "\": the Go operator trims each name and skips empty ones, this manager reads the list as "
                         "it is");
                set_annotation(kResizedContainersAnnotation, json::string(tidy));
                it->second = tidy;
            }
        }
        auto originals = decode_originals(ann);
        if (!originals) {
            note(a, "resize tracking", AdoptAction::Conflict,
                 originals.error().message +
                     ": this manager would neither judge nor revert this pod; correct or remove the annotation");
        } else if (originals.value()) {
            const auto& o = *originals.value();
            std::string names;
            for (const auto& [name, _] : o.containers) names += (names.empty() ? "" : ",") + name;
            std::string why =
                "the same keys and format as this manager's (attune.io/original-*, attune.io/resized-{at,workload,"
                "containers}, label attune.io/tracked): its safety watch goes on from them, and a revert goes back "
                "to these originals (containers " +
                names + (o.resized_at ? ", resized at " + format_timestamp(*o.resized_at) : "") + ")";
            if (!o.resized_at)
                why +=
                    "; without attune.io/resized-at the safety watch never judges it (neither operator writes "
                    "one without the other)";
            const auto tracked = labels.find(kTrackedLabel);
            if (tracked == labels.end() || tracked->second != "true")
                why += "; without the label attune.io/tracked=true neither operator watches it";
            note(a, "resize tracking", AdoptAction::Kept, std::move(why));
        }
    } else if (labels.contains(kTrackedLabel)) {
        note(a, "label " + std::string(kTrackedLabel), AdoptAction::Dropped,
             ann.contains(kStartupBoostAtAnnotation)
                 ? "no originals: the Go operator's mark of a boosted pod; this manager follows a boost by its "
                   "annotation alone and would never remove the label"
                 : "no originals: it marks no resize, and this manager would never remove it");
        drop_label(kTrackedLabel);
    }

    if (const auto it = ann.find(kStartupBoostAtAnnotation); it != ann.end()) {
        if (parse_timestamp(it->second))
            note(a, "annotation " + std::string(kStartupBoostAtAnnotation), AdoptAction::Kept,
                 "the same key and format: the boost ends startupBoost.duration after " + it->second +
                     ", as it would have, and the CPU request goes back to the recommendation");
        else
            note(a, "annotation " + std::string(kStartupBoostAtAnnotation), AdoptAction::Kept,
                 "\"" + it->second +
                     "\" is not a time: the Go operator kept such a boost for ever, this manager ends it at its next "
                     "pass");
    }

    if (ann.contains(kGoPolicyAnnotation)) {
        note(a, "annotation " + std::string(kGoPolicyAnnotation), AdoptAction::Dropped,
             "the Go operator's record of the policy, for its finalizer's cleanup; this manager does not read it and "
             "would never remove it");
        set_annotation(kGoPolicyAnnotation, nullptr);
    }
    finish(a);
    return a;
}

Adoption adopt_go_policy(const json::value& policy) {
    Adoption a;
    if (const auto* fins = array_at(policy, {"metadata", "finalizers"})) {
        json::array kept;
        bool found = false;
        for (const auto& f : *fins) {
            if (f.is_string() && f.get_string() == kGoCleanupFinalizer) found = true;
            else kept.push_back(f);
        }
        if (found) {
            note(a, "finalizer " + std::string(kGoCleanupFinalizer), AdoptAction::Dropped,
                 "the Go operator's; this manager has no finalizer, so with the Go operator gone deleting the policy "
                 "would wait on it for ever");
            auto& meta = metadata_patch(a);
            meta["finalizers"] = std::move(kept);
            meta["resourceVersion"] = string_at(policy, {"metadata", "resourceVersion"});
        }
    }

    const auto ann = annotations_of(policy);
    if (const auto it = ann.find(kLastResizeTimeAnnotation); it != ann.end()) {
        if (parse_timestamp(it->second))
            note(a, "annotation " + std::string(kLastResizeTimeAnnotation), AdoptAction::Kept,
                 "the cooldown anchor, the same key and format: no resize before " + it->second +
                     " plus the effective cooldown (status.cooldown)");
        else
            note(a, "annotation " + std::string(kLastResizeTimeAnnotation), AdoptAction::Conflict,
                 "\"" + it->second +
                     "\" is not an RFC 3339 time: the Go operator ignores it (no cooldown), this manager holds every "
                     "resize until it is corrected; correct or remove it");
    }

    if (const auto* h = json_at(policy, {"status", "resizeHistory"})) {
        auto history = decode_history(*h);
        if (!history) {
            note(a, "status.resizeHistory", AdoptAction::Conflict,
                 history.error().message +
                     ": this manager would start a new history and lose the reverts the cooldown backs off on");
        } else {
            const int ours = count_consecutive_reverts(history.value());
            const int go = go_consecutive_reverts(history.value());
            std::string why = plural(history.value().size(), "entry", "entries") +
                              ", the same fields and values; the cooldown backs off on its " +
                              plural(static_cast<std::size_t>(ours), "consecutive revert", "consecutive reverts");
            if (ours != go)
                why += " (the Go operator counted " + std::to_string(go) +
                       ": it stops at the first entry that is not a revert, this manager skips failures and template "
                       "entries)";
            note(a, "status.resizeHistory", AdoptAction::Kept, std::move(why));
        }
    }
    if (object_at(policy, {"status", "cooldown"}))
        note(a, "status.cooldown", AdoptAction::Kept,
             "the same fields; recomputed from the history and the policy's cooldown at the next pass");
    if (object_at(policy, {"status", "canary"})) {
        note(a, "status.canary", AdoptAction::Dropped,
             "the Go operator's canary progress; this manager keeps its own in status.lifecycle and starts the "
             "canary over: pods already at their targets are not resized again, and those in their safety period "
             "keep it (their annotations)");
        a.status_patch["status"] = json::object{{"canary", nullptr}};
    }
    finish(a);
    return a;
}

GoLeaseJudgement judge_go_lease(const json::value& lease, Timestamp now) {
    GoLeaseJudgement j;
    j.record = read_lease_record(lease, now);
    const auto& r = j.record;
    const std::string renewed =
        r.renewed ? "renewed " + std::to_string(r.age_seconds) + "s ago" : std::string("never renewed");
    const std::string lease_s = "lease " + std::to_string(r.duration_seconds) + "s";
    if (r.holder == kMigrationLeaseHolder) {
        j.verdict = GoLeaseVerdict::Ours;
        j.message = "held by " + r.holder + " (an earlier migrate took it over)";
    } else if (r.holder.empty()) {
        j.verdict = GoLeaseVerdict::Free;
        j.message = "held by nobody (released)";
    } else if (r.fresh) {
        j.verdict = GoLeaseVerdict::Leading;
        j.message = "held by " + r.holder + ", " + renewed + " (" + lease_s + ")";
    } else {
        j.verdict = GoLeaseVerdict::Stale;
        j.message = "last held by " + r.holder + ", " + renewed + " (" + lease_s + "): expired";
    }
    return j;
}

json::value go_lease_takeover(json::value lease, std::string_view now_micro) {
    if (!lease.is_object()) lease = json::object{};
    const auto before = read_lease_record(lease, Timestamp{});
    auto& spec = lease.get_object()["spec"];
    if (!spec.is_object()) spec.emplace_object();
    auto& s = spec.get_object();
    if (before.holder != kMigrationLeaseHolder) {
        s["leaseTransitions"] = before.transitions + 1;
        s["acquireTime"] = now_micro;
    }
    s["holderIdentity"] = kMigrationLeaseHolder;
    s["leaseDurationSeconds"] = kMigrationLeaseSeconds;
    s["renewTime"] = now_micro;
    return lease;
}

std::vector<std::string> go_webhooks_in(const json::value& configuration) {
    std::vector<std::string> out;
    if (const auto* hooks = array_at(configuration, {"webhooks"}))
        for (const auto& h : *hooks) {
            const auto name = string_at(h, {"name"});
            if (std::find(kGoWebhookNames.begin(), kGoWebhookNames.end(), name) != kGoWebhookNames.end())
                out.emplace_back(name);
        }
    return out;
}

}  // namespace attune::core
