#include "attune/core/followups/pull_request.hpp"

#include "attune/core/followups/recommended_manifest.hpp"
#include "attune/core/policy/policy_validation.hpp"
#include "attune/core/util/json_path.hpp"
#include "attune/core/util/stable_hash.hpp"

#include <arpa/inet.h>

#include <array>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace attune::core {
namespace json = boost::json;

namespace {

// Millicores for cpu, bytes for memory: the unit the percentage is taken in.
double magnitude(const Quantity& q, std::string_view resource) {
    return resource == "cpu" ? static_cast<double>(q.milli_value()) : static_cast<double>(q.value());
}

std::optional<ResourceDrift> drift_of(std::string_view kind, std::string_view workload, std::string_view container,
                                      std::string_view resource, const ResourceList& requests,
                                      const Quantity& recommended, int min_change_percent) {
    const double rec = magnitude(recommended, resource);
    if (rec <= 0) return std::nullopt;
    ResourceDrift d{std::string(kind), std::string(workload), std::string(container), std::string(resource),
                    std::nullopt, recommended, 100};
    const auto it = requests.find(resource);
    if (it != requests.end() && magnitude(it->second, resource) > 0) {
        const double tpl = magnitude(it->second, resource);
        d.template_value = it->second;
        d.change_percent = std::fabs(rec - tpl) / tpl * 100.0;
    }
    // A hair under the threshold from floating point still counts as reaching it.
    if (!std::isfinite(d.change_percent) || d.change_percent + 1e-9 < min_change_percent) return std::nullopt;
    return d;
}

std::string percent_text(double p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", p);
    return buf;
}

Condition condition(const std::string& status, std::string_view reason, std::string message, std::int64_t generation) {
    return Condition{std::string(kConditionGitOpsPullRequest), status, std::string(reason), std::move(message), {},
                     generation};
}

std::string files_text(const std::vector<std::string>& files) {
    std::string out;
    for (const auto& f : files) out += (out.empty() ? "" : ", ") + f;
    return out;
}

}  // namespace

std::vector<ResourceDrift> request_drift(std::string_view kind, std::string_view workload, const Pod& pod_template,
                                         const WorkloadRecommendation& rec, int min_change_percent) {
    std::vector<ResourceDrift> out;
    for (const auto& c : rec.containers) {
        const Container* t = pod_template.find_container(c.name);
        if (!t) continue;
        if (auto d = drift_of(kind, workload, c.name, "cpu", t->resources.requests, c.recommended.cpu_request,
                              min_change_percent))
            out.push_back(std::move(*d));
        if (auto d = drift_of(kind, workload, c.name, "memory", t->resources.requests, c.recommended.memory_request,
                              min_change_percent))
            out.push_back(std::move(*d));
    }
    return out;
}

std::string drift_fingerprint(const std::vector<ResourceDrift>& drifts) {
    StableHasher h;
    for (const auto& d : drifts) {
        h.field(d.kind).field(d.workload).field(d.container).field(d.resource);
        h.field(d.template_value ? d.template_value->to_string() : "").field(d.recommended.to_string());
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h.digest()));
    return buf;
}

std::string pull_request_branch(std::string_view ns, std::string_view policy) {
    std::string safe = std::string(ns) + "-" + std::string(policy);
    for (auto& ch : safe) {
        const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-';
        if (!ok) ch = '-';
    }
    return "attune/recommendations-" + safe;
}

std::string pull_request_title(std::string_view ns, std::string_view policy) {
    return "chore(attune): apply recommendations for " + std::string(ns) + "/" + std::string(policy);
}

std::string pull_request_commit_message(std::string_view ns, std::string_view policy, std::string_view path) {
    return "chore(attune): resources of " + std::string(path) + " from policy " + std::string(ns) + "/" +
           std::string(policy);
}

std::string pull_request_body(std::string_view ns, std::string_view policy, const std::vector<ResourceDrift>& drifts,
                              const std::vector<std::string>& files) {
    std::string b = "## Attune recommendations\n\nPolicy: `" + std::string(ns) + "/" + std::string(policy) +
                    "`\n\nThese container requests differ from the workload's pod template by at least the "
                    "policy's minChangePercent.\n\n"
                    "| Workload | Kind | Container | Resource | Template | Recommended | Change |\n"
                    "|---|---|---|---|---|---|---|\n";
    for (const auto& d : drifts)
        b += "| " + d.workload + " | " + d.kind + " | " + d.container + " | " + d.resource + " | " +
             (d.template_value ? d.template_value->to_string() : std::string("none")) + " | " +
             d.recommended.to_string() + " | " + percent_text(d.change_percent) + " |\n";
    b += "\n### Files\n\n";
    for (const auto& f : files) b += "- `" + f + "`\n";
    b += "\nReview the values, then merge: the next rollout starts the pods at these sizes. A later drift updates "
         "this pull request.\n\n_Opened by Attune (updateStrategy.export.pullRequest)._\n";
    return b;
}

Result<std::string> manifest_path(std::string_view path_template, std::string_view ns, std::string_view kind,
                                  std::string_view name) {
    if (path_template.empty()) return manifest_file_name(ns, kind, name, false);
    std::string lower(kind);
    for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    std::string out(path_template);
    for (auto [key, value] : {std::pair<std::string_view, std::string_view>{"{namespace}", ns},
                              {"{kind}", lower},
                              {"{name}", name}}) {
        for (auto at = out.find(key); at != std::string::npos; at = out.find(key, at + value.size()))
            out.replace(at, key.size(), value);
    }
    auto bad = [&](std::string why) {
        return make_error("invalid_config", std::string(kPullRequestPathAnnotation) + " \"" +
                                                std::string(path_template) + "\": " + std::move(why));
    };
    if (out.empty() || out.back() == '/') return bad("names no file");
    if (out.front() == '/') return bad("must be relative to the repository's root");
    for (std::size_t start = 0; start <= out.size();) {
        const auto end = std::min(out.find('/', start), out.size());
        const auto seg = std::string_view(out).substr(start, end - start);
        if (seg == ".." || seg == "." || seg.empty()) return bad("has an empty, \".\" or \"..\" segment");
        start = end + 1;
    }
    return out;
}

std::string check_forge_address(std::string_view ip, bool allow_loopback, bool allow_private) {
    if (auto why = check_resolved_address(ip, allow_loopback); !why.empty()) return why;
    if (allow_private) return "";
    const std::string text(ip.substr(0, ip.find('%')));
    const std::string refused = text + " is a private address: set export.pullRequest.allowPrivateEndpoints to use it";
    std::array<std::uint8_t, 16> v6{};
    if (inet_pton(AF_INET6, text.c_str(), v6.data()) == 1) {
        if ((v6[0] & 0xfe) == 0xfc) return refused;
        const bool mapped = std::all_of(v6.begin(), v6.begin() + 10, [](auto b) { return b == 0; }) && v6[10] == 0xff &&
                            v6[11] == 0xff;
        if (!mapped) return "";
        return check_forge_address(std::to_string(v6[12]) + "." + std::to_string(v6[13]) + "." +
                                       std::to_string(v6[14]) + "." + std::to_string(v6[15]),
                                   allow_loopback, false);
    }
    std::array<std::uint8_t, 4> v4{};
    if (inet_pton(AF_INET, text.c_str(), v4.data()) != 1) return "";
    if (v4[0] == 10 || (v4[0] == 172 && (v4[1] & 0xf0) == 16) || (v4[0] == 192 && v4[1] == 168) ||
        (v4[0] == 100 && (v4[1] & 0xc0) == 64))
        return refused;
    return "";
}

json::object pull_request_record_json(const PullRequestRecord& r) {
    json::object o;
    if (!r.drift_fingerprint.empty()) o["driftFingerprint"] = r.drift_fingerprint;
    if (r.last_attempt) o["lastAttempt"] = format_timestamp(*r.last_attempt);
    if (!r.url.empty()) o["url"] = r.url;
    return o;
}

std::optional<PullRequestRecord> pull_request_record_from(const json::value& policy) {
    PullRequestRecord r;
    bool any = false;
    if (object_at(policy, {"status", "gitopsPR"})) {
        any = true;
        r.drift_fingerprint = std::string(string_at(policy, {"status", "gitopsPR", "driftFingerprint"}));
        r.url = std::string(string_at(policy, {"status", "gitopsPR", "url"}));
        if (auto t = parse_timestamp(string_at(policy, {"status", "gitopsPR", "lastAttempt"}))) r.last_attempt = t.value();
    }
    if (!r.last_attempt) {
        if (auto t = parse_timestamp(string_at(policy, {"metadata", "annotations", kPullRequestLastAttemptAnnotation}))) {
            r.last_attempt = t.value();
            any = true;
        }
    }
    if (r.url.empty()) {
        r.url = std::string(string_at(policy, {"metadata", "annotations", kPullRequestUrlAnnotation}));
        any = any || !r.url.empty();
    }
    if (!any) return std::nullopt;
    return r;
}

PullRequestDecision decide_pull_request(const PullRequestInputs& in) {
    PullRequestDecision d;
    if (!in.settings || in.mode == UpdateMode::Observe) return d;
    d.step = PullRequestStep::Report;
    const auto& s = *in.settings;
    if (!s.enabled) {
        d.condition = condition("False", "PullRequestDisabled", "export.pullRequest.enabled is false", in.generation);
        return d;
    }
    if (in.drifts.empty()) {
        d.condition = condition("False", "NoDrift",
                                "No recommended request differs from its workload's template by " +
                                    std::to_string(s.min_change_percent) + "% (minChangePercent) or more",
                                in.generation);
        return d;
    }
    d.fingerprint = drift_fingerprint(in.drifts);
    const bool in_cooldown = in.last && in.last->last_attempt && in.now < *in.last->last_attempt + s.cooldown;
    if (in.last && in.last->drift_fingerprint == d.fingerprint) {
        const bool opened = in.current && in.current->reason == "PullRequestOpen";
        const bool dry_run_left = in.current && in.current->reason == "PullRequestDryRun" && !s.dry_run;
        if ((opened || in_cooldown) && in.current && !dry_run_left) {
            d.condition = *in.current;
            return d;
        }
        if (!in.current && !in.last->url.empty()) {
            d.condition = condition("True", "PullRequestOpen",
                                    "Pull request " + in.last->url + " carries these recommendations", in.generation);
            return d;
        }
    }
    if (in_cooldown) {
        const auto until = format_timestamp(*in.last->last_attempt + std::chrono::duration_cast<std::chrono::seconds>(s.cooldown));
        d.condition = condition("False", "PullRequestCooldown",
                                "Cooldown active until " + until + ": " + std::to_string(in.drifts.size()) +
                                    " drifted resources wait for the next pull request",
                                in.generation);
        return d;
    }
    d.step = s.dry_run ? PullRequestStep::DryRun : PullRequestStep::Send;
    return d;
}

namespace {
PullRequestRecord attempted(const PullRequestAttempt& a) {
    PullRequestRecord r = a.last.value_or(PullRequestRecord{});
    r.drift_fingerprint = a.fingerprint;
    r.last_attempt = a.now;
    return r;
}
}  // namespace

PullRequestOutcome dry_run_outcome(const PullRequestAttempt& a) {
    const auto& s = *a.settings;
    std::string msg = "Dry run: would open or update a " +
                      std::string(s.provider == "gitlab" ? "merge request" : "pull request") + " on " + s.repository +
                      " from " + a.branch + " into " + s.base_branch + " (" + std::to_string(a.drifts) +
                      " drifted resources; files " + files_text(a.files) + ")";
    PullRequestOutcome o{condition("True", "PullRequestDryRun", msg, a.generation), "dry_run",
                         EventIntent{"Normal", "PullRequestDryRun", "export", msg, true}, attempted(a)};
    return o;
}

PullRequestOutcome sent_outcome(const PullRequestAttempt& a, const std::string& url, bool updated) {
    const std::string what = a.settings->provider == "gitlab" ? "merge request " : "pull request ";
    const std::string msg = std::string(updated ? "Updated " : "Opened ") + what + url + " (" +
                            std::to_string(a.drifts) + " drifted resources)";
    PullRequestOutcome o{condition("True", "PullRequestOpen", msg, a.generation), updated ? "updated" : "created",
                         EventIntent{"Normal", "PullRequestOpen", "export", msg, false}, attempted(a)};
    o.record.url = url;
    return o;
}

PullRequestOutcome failed_outcome(const PullRequestAttempt& a, const std::string& message) {
    const std::string msg = "Pull request on " + a.settings->repository + " failed: " + message;
    return PullRequestOutcome{condition("False", "PullRequestFailed", msg, a.generation), "failed",
                              EventIntent{"Warning", "PullRequestFailed", "export", msg, true}, attempted(a)};
}

}  // namespace attune::core
