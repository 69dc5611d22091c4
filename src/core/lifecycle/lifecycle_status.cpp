#include "attune/core/lifecycle/lifecycle_status.hpp"

#include <algorithm>
#include <boost/json.hpp>

#include "../util/json_decode.hpp"

namespace attune::core {
namespace {

using namespace detail;
namespace json = boost::json;

constexpr std::string_view kPhaseNames[] = {"ValidationRunning",           "PausedAtStep",
                                            "ValidatedAwaitingPersistence", "ValidatedWithoutPersistence",
                                            "Persisted",                   "Failed"};
constexpr std::string_view kSourceNames[] = {"Manual", "VPA", "Prometheus"};

template <class E, std::size_t N>
E required_enum(const json::object& o, std::string_view key, const std::string& path, const std::string_view (&names)[N]) {
    auto e = opt_enum<E>(o, key, path, names);
    if (!e) fail(path + "." + std::string(key), "required");
    return *e;
}

std::optional<Timestamp> opt_time(const json::object& o, std::string_view key, const std::string& path) {
    const auto* v = field(o, key);
    if (!v) return std::nullopt;
    const std::string at = path + "." + std::string(key);
    if (!v->is_string()) fail(at, "expected an RFC 3339 time");
    auto t = parse_timestamp(v->get_string());
    if (!t.ok()) fail(at, t.error().message);
    return t.value();
}

json::object encode_list(const ResourceList& l) {
    json::object o;
    for (const auto& [name, q] : l) o[name] = q.to_string();
    return o;
}

json::value encode_resources(const ContainerResourceMap& m) {
    json::array containers;
    for (const auto& [name, rr] : m) {
        json::object res;
        if (!rr.requests.empty()) res["requests"] = encode_list(rr.requests);
        if (!rr.limits.empty()) res["limits"] = encode_list(rr.limits);
        containers.push_back(json::object{{"name", name}, {"resources", std::move(res)}});
    }
    return json::object{{"containers", std::move(containers)}};
}

ContainerResourceMap decode_resources(const json::object& o, std::string_view key, const std::string& path) {
    ContainerResourceMap out;
    const auto* obj = opt_object(o, key, path);
    if (!obj) return out;
    const std::string at = path + "." + std::string(key);
    const auto* arr = opt_array(*obj, "containers", at);
    if (!arr) return out;
    for (std::size_t i = 0; i < arr->size(); ++i) {
        const std::string cat = at + ".containers[" + std::to_string(i) + "]";
        const auto& c = as_object((*arr)[i], cat);
        const std::string name = opt_string(c, "name", cat);
        if (name.empty()) fail(cat + ".name", "missing container name");
        ResourceRequirements rr;
        if (const auto* r = field(c, "resources")) {
            auto d = decode_requirements(*r, cat + ".resources");
            if (!d.ok()) fail(cat + ".resources", d.error().message);
            rr = std::move(d).value();
        }
        if (!out.emplace(name, std::move(rr)).second) fail(cat + ".name", "duplicate container \"" + name + "\"");
    }
    return out;
}

LifecycleStatusEntry decode_entry(const json::value& v, const std::string& path) {
    const auto& o = as_object(v, path);
    LifecycleStatusEntry e;
    e.workload = opt_string(o, "workload", path);
    if (e.workload.empty()) fail(path + ".workload", "required");
    e.kind = opt_string(o, "kind", path);
    if (e.kind.empty()) fail(path + ".kind", "required");
    e.phase = required_enum<LifecyclePhase>(o, "phase", path, kPhaseNames);
    e.current_revision = opt_string(o, "currentRevision", path);
    e.validated_revision = opt_string(o, "validatedRevision", path);
    if (const auto* failed = opt_array(o, "failedRevisions", path)) {
        for (std::size_t i = 0; i < failed->size(); ++i) {
            if (!(*failed)[i].is_string()) fail(path + ".failedRevisions[" + std::to_string(i) + "]", "expected a string");
            add_failed_revision(e.failed_revisions, std::string((*failed)[i].get_string()));
        }
    }
    if (auto step = opt_int(o, "step", path)) {
        if (*step < 0) fail(path + ".step", "must not be negative");
        e.step = static_cast<std::size_t>(*step);
    }
    e.step_started_at = opt_time(o, "stepStartedAt", path);
    e.baseline = decode_resources(o, "baseline", path);
    e.candidate = decode_resources(o, "candidate", path);
    if (const auto* pods = opt_array(o, "pods", path)) {
        for (std::size_t i = 0; i < pods->size() && e.pods.size() < kMaxLifecyclePods; ++i) {
            const std::string at = path + ".pods[" + std::to_string(i) + "]";
            const auto& po = as_object((*pods)[i], at);
            LifecyclePodStatus p;
            p.name = opt_string(po, "name", at);
            if (p.name.empty()) fail(at + ".name", "required");
            p.uid = opt_string(po, "uid", at);
            const std::string state = opt_string(po, "state", at);
            const auto parsed = parse_resize_state(state);
            if (!parsed) fail(at + ".state", "unknown resize state \"" + state + "\"");
            p.state = *parsed;
            p.since = opt_time(po, "since", at).value_or(Timestamp{});
            e.pods.push_back(std::move(p));
        }
    }
    e.handled_revalidation_token = opt_string(o, "handledRevalidationToken", path);
    e.message = opt_string(o, "message", path);
    e.attempt_started_at = opt_time(o, "attemptStartedAt", path);
    e.step_applied_at = opt_time(o, "stepAppliedAt", path);
    e.step_ready_at = opt_time(o, "stepReadyAt", path);
    e.source = opt_enum<RecommendationSource>(o, "source", path, kSourceNames);
    if (const auto* a = opt_object(o, "lastAnalysis", path)) {
        const std::string at = path + ".lastAnalysis";
        LifecycleAnalysisStatus la;
        const auto step = opt_int(*a, "step", at).value_or(0);
        if (step < 0) fail(at + ".step", "must not be negative");
        la.step = static_cast<std::size_t>(step);
        la.passed = opt_bool(*a, "passed", at);
        la.explanation = opt_string(*a, "explanation", at);
        la.evaluated_at = opt_time(*a, "evaluatedAt", at).value_or(Timestamp{});
        e.last_analysis = std::move(la);
    }
    e.attempt = opt_int(o, "attempt", path).value_or(0);
    return e;
}

// Human text is cut to kMaxLifecycleText bytes (the schema's maxLength),
// never inside a UTF-8 sequence.
std::string bounded(const std::string& text) {
    if (text.size() <= kMaxLifecycleText) return text;
    std::size_t cut = kMaxLifecycleText - 3;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    return text.substr(0, cut) + "...";
}

bool entry_order(const LifecycleStatusEntry& a, const LifecycleStatusEntry& b) {
    return a.kind != b.kind ? a.kind < b.kind : a.workload < b.workload;
}

}  // namespace

std::string_view lifecycle_phase_name(LifecyclePhase p) noexcept { return kPhaseNames[static_cast<int>(p)]; }

bool is_validating(LifecyclePhase p) noexcept {
    return p == LifecyclePhase::ValidationRunning || p == LifecyclePhase::PausedAtStep;
}

std::string_view recommendation_source_name(RecommendationSource s) noexcept { return kSourceNames[static_cast<int>(s)]; }

void add_failed_revision(std::vector<std::string>& failed, const std::string& revision) {
    if (revision.empty() || std::find(failed.begin(), failed.end(), revision) != failed.end()) return;
    failed.push_back(revision);
    if (failed.size() > kMaxFailedRevisions)
        failed.erase(failed.begin(), failed.begin() + static_cast<std::ptrdiff_t>(failed.size() - kMaxFailedRevisions));
}

json::value encode_lifecycle_entry(const LifecycleStatusEntry& e) {
    json::object o;
    o["workload"] = e.workload;
    o["kind"] = e.kind;
    o["phase"] = lifecycle_phase_name(e.phase);
    o["currentRevision"] = e.current_revision;
    if (!e.validated_revision.empty()) o["validatedRevision"] = e.validated_revision;
    if (!e.failed_revisions.empty()) {
        json::array failed;
        // The newest kMaxFailedRevisions, should a caller have added more.
        const std::size_t skip = e.failed_revisions.size() > kMaxFailedRevisions ? e.failed_revisions.size() - kMaxFailedRevisions : 0;
        for (std::size_t i = skip; i < e.failed_revisions.size(); ++i) failed.emplace_back(e.failed_revisions[i]);
        o["failedRevisions"] = std::move(failed);
    }
    o["step"] = static_cast<std::int64_t>(e.step);
    if (e.step_started_at) o["stepStartedAt"] = format_timestamp(*e.step_started_at);
    o["baseline"] = encode_resources(e.baseline);
    o["candidate"] = encode_resources(e.candidate);
    json::array pods;
    for (std::size_t i = 0; i < e.pods.size() && i < kMaxLifecyclePods; ++i) {
        const auto& p = e.pods[i];
        json::object po{{"name", p.name}, {"state", resize_state_name(p.state)}, {"since", format_timestamp(p.since)}};
        if (!p.uid.empty()) po["uid"] = p.uid;
        pods.push_back(std::move(po));
    }
    o["pods"] = std::move(pods);
    if (!e.handled_revalidation_token.empty()) o["handledRevalidationToken"] = e.handled_revalidation_token;
    if (!e.message.empty()) o["message"] = bounded(e.message);
    if (e.attempt_started_at) o["attemptStartedAt"] = format_timestamp(*e.attempt_started_at);
    if (e.step_applied_at) o["stepAppliedAt"] = format_timestamp(*e.step_applied_at);
    if (e.step_ready_at) o["stepReadyAt"] = format_timestamp(*e.step_ready_at);
    if (e.source) o["source"] = recommendation_source_name(*e.source);
    if (e.last_analysis) {
        const auto& a = *e.last_analysis;
        o["lastAnalysis"] = json::object{{"step", static_cast<std::int64_t>(a.step)},
                                         {"passed", a.passed},
                                         {"explanation", bounded(a.explanation)},
                                         {"evaluatedAt", format_timestamp(a.evaluated_at)}};
    }
    o["attempt"] = e.attempt;
    return o;
}

Result<LifecycleStatusEntry> decode_lifecycle_entry(const json::value& v, const std::string& path) {
    try {
        return decode_entry(v, path);
    } catch (const DecodeFailure& e) {
        return make_error("invalid_lifecycle_status", e.what());
    }
}

json::value encode_lifecycle_status(std::vector<LifecycleStatusEntry> entries) {
    std::sort(entries.begin(), entries.end(), entry_order);
    json::array workloads;
    for (std::size_t i = 0; i < entries.size() && i < kMaxLifecycleWorkloads; ++i)
        workloads.push_back(encode_lifecycle_entry(entries[i]));
    return json::object{{"workloads", std::move(workloads)}};
}

Result<std::vector<LifecycleStatusEntry>> decode_lifecycle_status(const json::value& v) {
    const std::string path = "status.lifecycle";
    try {
        std::vector<LifecycleStatusEntry> out;
        if (v.is_null()) return out;
        const auto& o = as_object(v, path);
        const auto* arr = opt_array(o, "workloads", path);
        if (!arr) return out;
        for (std::size_t i = 0; i < arr->size(); ++i)
            out.push_back(decode_entry((*arr)[i], path + ".workloads[" + std::to_string(i) + "]"));
        return out;
    } catch (const DecodeFailure& e) {
        return make_error("invalid_lifecycle_status", e.what());
    }
}

const LifecycleStatusEntry* find_lifecycle_entry(const std::vector<LifecycleStatusEntry>& entries, std::string_view kind,
                                                 std::string_view workload) {
    for (const auto& e : entries)
        if (e.kind == kind && e.workload == workload) return &e;
    return nullptr;
}

}  // namespace attune::core
