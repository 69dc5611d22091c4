#include "attune/core/policy/policy_wizard.hpp"

#include "attune/core/model/quantity.hpp"
#include "attune/core/policy/policy_validation.hpp"
#include "attune/core/util/duration.hpp"
#include "attune/core/util/object_names.hpp"
#include "attune/core/util/time_zone.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

namespace attune::core {

namespace json = boost::json;

namespace {

constexpr std::string_view kMetricsAddressField = "spec.metricsSource.prometheus.address";
constexpr std::string_view kClear = "-";  // clears an optional answer kept from a first pass

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    for (;;) {
        const auto at = s.find(sep);
        out.push_back(trim(s.substr(0, at)));
        if (at == std::string_view::npos) return out;
        s = s.substr(at + 1);
    }
}

bool all_digits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// kubectl's names and short names for the kinds targetRef accepts.
std::optional<std::string> target_kind(std::string_view text) {
    struct Alias {
        std::string_view kind;
        std::array<std::string_view, 3> names;
    };
    static constexpr std::array<Alias, 6> kAliases{{
        {"Deployment", {"deployment", "deployments", "deploy"}},
        {"StatefulSet", {"statefulset", "statefulsets", "sts"}},
        {"DaemonSet", {"daemonset", "daemonsets", "ds"}},
        {"ReplicaSet", {"replicaset", "replicasets", "rs"}},
        {"Job", {"job", "jobs", "job"}},
        {"CronJob", {"cronjob", "cronjobs", "cj"}},
    }};
    const auto l = lower(text);
    for (const auto& a : kAliases)
        if (std::find(a.names.begin(), a.names.end(), l) != a.names.end()) return std::string(a.kind);
    return std::nullopt;
}

constexpr std::string_view kKindsText = "Deployment, StatefulSet, DaemonSet, ReplicaSet, Job or CronJob";

constexpr std::array<std::string_view, 4> kModes{"Observe", "Recommend", "OneShot", "Auto"};
constexpr std::array<std::string_view, 4> kSources{"prometheus", "vpa", "manual", "defaults"};
constexpr std::array<std::string_view, 7> kDays{"Monday", "Tuesday",  "Wednesday", "Thursday",
                                                "Friday", "Saturday", "Sunday"};

// A day by its name or its first three letters, any case: its index.
std::optional<std::size_t> day_index(std::string_view text) {
    const auto l = lower(text);
    for (std::size_t i = 0; i < kDays.size(); ++i) {
        const auto d = lower(kDays[i]);
        if (l == d || (l.size() == 3 && d.starts_with(l))) return i;
    }
    return std::nullopt;
}

// "Mon-Fri,Sun", "weekdays", "weekend": the days, Monday first, each once.
Result<std::vector<std::string>> parse_days(std::string_view text) {
    std::array<bool, 7> on{};
    for (auto item : split(text, ',')) {
        const auto l = lower(item);
        if (l == "weekdays") {
            for (std::size_t i = 0; i < 5; ++i) on[i] = true;
            continue;
        }
        if (l == "weekend") {
            on[5] = on[6] = true;
            continue;
        }
        const auto dash = item.find('-');
        const auto first = day_index(trim(item.substr(0, dash)));
        const auto last = dash == std::string_view::npos ? first : day_index(trim(item.substr(dash + 1)));
        if (!first || !last)
            return make_error("invalid_answer", "\"" + std::string(item) +
                                                    "\" is not a day (Monday ... Sunday, Mon ... Sun, a range "
                                                    "Mon-Fri, weekdays or weekend)");
        // A range wraps past Sunday, as a window wraps past midnight: Fri-Mon.
        for (std::size_t i = *first;; i = (i + 1) % 7) {
            on[i] = true;
            if (i == *last) break;
        }
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i < 7; ++i)
        if (on[i]) out.emplace_back(kDays[i]);
    return out;
}

// "HH:MM" as the CRD has it: 00:00 to 23:59, two digits each.
bool clock_time(std::string_view s) {
    if (s.size() != 5 || s[2] != ':' || !all_digits(s.substr(0, 2)) || !all_digits(s.substr(3))) return false;
    return (s[0] < '2' || (s[0] == '2' && s[1] <= '3')) && s[3] <= '5';
}

Result<std::vector<std::pair<std::string, std::string>>> parse_windows(std::string_view text) {
    std::vector<std::pair<std::string, std::string>> out;
    for (auto item : split(text, ',')) {
        const auto dash = item.find('-');
        const auto start = trim(item.substr(0, dash));
        const auto end = dash == std::string_view::npos ? std::string_view() : trim(item.substr(dash + 1));
        if (!clock_time(start) || !clock_time(end))
            return make_error("invalid_answer", "\"" + std::string(item) +
                                                    "\" is not a window HH:MM-HH:MM between 00:00 and 23:59 "
                                                    "(an end before the start wraps past midnight)");
        out.emplace_back(start, end);
    }
    return out;
}

// The ceilings a policy's bounds have (docs/api.md, cpu / memory).
const Quantity& bound_ceiling(bool cpu) {
    static const Quantity kCpu = Quantity::from_value(256);
    static const Quantity kMemory = Quantity::parse("16Ti").value();
    return cpu ? kCpu : kMemory;
}

Result<Quantity> positive_quantity(std::string_view text) {
    auto q = Quantity::parse(text);
    if (!q)
        return make_error("invalid_answer", "\"" + std::string(text) + "\" is not a quantity: " + q.error().message);
    if (q.value().sign() <= 0) return make_error("invalid_answer", "\"" + std::string(text) + "\" must be above 0");
    return q;
}

struct Question {
    std::string_view label;
    std::string_view hint;      // when there is no default: what Enter gives ("" = an answer is required)
    std::string_view fallback;  // the built-in default, "" when none
};

bool optional_step(WizardStep s) {
    switch (s) {
        case WizardStep::ManualCpu:
        case WizardStep::ManualMemory:
        case WizardStep::CpuMin:
        case WizardStep::CpuMax:
        case WizardStep::MemoryMin:
        case WizardStep::MemoryMax:
        case WizardStep::Windows:
        case WizardStep::Days:
        case WizardStep::Cooldown: return true;
        default: return false;
    }
}

}  // namespace

PolicyWizard::PolicyWizard(WizardOptions options) : options_(std::move(options)) {}

bool PolicyWizard::resizes() const { return mode_ == "OneShot" || mode_ == "Auto"; }

std::string PolicyWizard::default_for(WizardStep s) const {
    if (auto it = answers_.find(s); it != answers_.end()) return it->second;
    switch (s) {
        case WizardStep::Namespace: return options_.default_namespace.empty() ? "default" : options_.default_namespace;
        case WizardStep::Target: return workloads_.items.empty() ? "" : "1";
        case WizardStep::SelectorKind: return "Deployment";
        case WizardStep::Name: {
            std::string base = workload_;
            if (base.empty() && !selector_.empty()) base = selector_.begin()->second;
            if (base.empty() || !dns1123_subdomain_error(base).empty()) base = "workloads";
            return base.substr(0, 246) + "-attune";
        }
        case WizardStep::Mode: return "Recommend";
        case WizardStep::Source: return "prometheus";
        case WizardStep::VpaName: return workload_;
        case WizardStep::CpuPercentile: return "95";
        case WizardStep::MemoryPercentile: return "99";
        case WizardStep::TimeZone: return "UTC";
        case WizardStep::File: return name_ + ".yaml";
        default: return "";
    }
}

WizardOutput PolicyWizard::ask(WizardStep s, std::string reason) {
    step_ = s;
    const std::string container = answers_.count(WizardStep::ManualContainer) != 0
                                      ? answers_.at(WizardStep::ManualContainer)
                                      : std::string("the container");
    Question q;
    std::string extra;  // a question's own text: choices, a list
    switch (s) {
        case WizardStep::Namespace: q = {"Namespace", "", ""}; break;
        case WizardStep::Target:
            q = {"Target: a number, KIND/NAME, or a label selector key=value[,key=value]", "", ""};
            break;
        case WizardStep::SelectorKind: q = {"Kind of the workloads the selector picks", "", ""}; break;
        case WizardStep::Name: q = {"Policy name", "", ""}; break;
        case WizardStep::Mode:
            extra =
                "Modes:\n"
                "  Observe     reads the workloads, recommends nothing\n"
                "  Recommend   writes recommendations to the policy's status, changes no pod\n"
                "  OneShot     resizes each pod once, in place\n"
                "  Auto        resizes pods in place whenever the recommendation moves enough\n";
            q = {"Mode (Observe, Recommend, OneShot, Auto)", "", ""};
            break;
        case WizardStep::Source:
            extra =
                "Metrics sources:\n"
                "  prometheus  a Prometheus you give the address of\n"
                "  vpa         a VerticalPodAutoscaler's recommendation\n"
                "  manual      requests you give for one container\n"
                "  defaults    the source of the AttuneNamespaceDefaults or AttuneDefaults, else a Prometheus the\n"
                "              manager finds in the cluster\n";
            q = {"Metrics source (prometheus, vpa, manual, defaults)", "", ""};
            break;
        case WizardStep::PrometheusAddress:
            q = {"Prometheus address, e.g. http://prometheus.monitoring:9090", "", ""};
            break;
        case WizardStep::VpaName: q = {"VerticalPodAutoscaler name", "", ""}; break;
        case WizardStep::ManualContainer: q = {"Container name", "", ""}; break;
        case WizardStep::ManualCpu: q = {"", "Enter: the live value", ""}; break;
        case WizardStep::ManualMemory: q = {"", "Enter: the live value", ""}; break;
        case WizardStep::CpuPercentile: q = {"CPU percentile (50, 90, 95, 99)", "", ""}; break;
        case WizardStep::CpuMin: q = {"CPU minAllowed, e.g. 50m", "Enter: none of its own", ""}; break;
        case WizardStep::CpuMax: q = {"CPU maxAllowed, e.g. 2", "Enter: none of its own", ""}; break;
        case WizardStep::MemoryPercentile: q = {"Memory percentile (50, 90, 95, 99)", "", ""}; break;
        case WizardStep::MemoryMin: q = {"Memory minAllowed, e.g. 64Mi", "Enter: none of its own", ""}; break;
        case WizardStep::MemoryMax: q = {"Memory maxAllowed, e.g. 2Gi", "Enter: none of its own", ""}; break;
        case WizardStep::Windows:
            q = {"Resize only within windows HH:MM-HH:MM[,HH:MM-HH:MM]", "Enter: at any time", ""};
            break;
        case WizardStep::Days: q = {"On days, e.g. Mon-Fri or Monday,Saturday", "Enter: every day", ""}; break;
        case WizardStep::TimeZone: q = {"Time zone of the windows", "", ""}; break;
        case WizardStep::Cooldown:
            q = {"Cooldown between two resizes of a pod, e.g. 30m", "Enter: inherited, 1h built in", ""};
            break;
        case WizardStep::Action:
            q = valid_ ? Question{"", "", ""} : Question{"Change the answers (e) or quit (q)", "", ""};
            break;
        case WizardStep::File: q = {"File to write", "", ""}; break;
        case WizardStep::Done: break;
    }
    std::string label(q.label);
    if (s == WizardStep::ManualCpu) label = "CPU request for " + container + ", e.g. 250m";
    if (s == WizardStep::ManualMemory) label = "Memory request for " + container + ", e.g. 256Mi";
    if (s == WizardStep::Action && valid_)
        label = "Create it in namespace " + ns_ + " (c), write it to a file (w), change the answers (e), or quit (q)";
    const std::string def = s == WizardStep::Action ? std::string() : default_for(s);
    std::string prompt = label;
    if (!def.empty()) prompt += " [" + def + "]";
    else if (!q.hint.empty()) prompt += " (" + std::string(q.hint) + ")";
    prompt += ": ";

    WizardOutput out;
    out.action = WizardAction::Ask;
    out.text = std::move(pending_text_);
    pending_text_.clear();
    if (!reason.empty()) out.text += "  ! " + reason + "\n";
    else out.text += extra;
    out.prompt = std::move(prompt);
    return out;
}

WizardOutput PolicyWizard::start() {
    pending_text_ =
        "This wizard writes an AttunePolicy. Enter takes the value in [brackets]; Ctrl-D quits and creates "
        "nothing.\n";
    return ask(WizardStep::Namespace);
}

WizardOutput PolicyWizard::end_of_input() {
    step_ = WizardStep::Done;
    WizardOutput out;
    out.action = WizardAction::Finish;
    out.text = "\nAborted: nothing was created.\n";
    out.exit_code = 1;
    return out;
}

WizardOutput PolicyWizard::workloads_listed(WizardWorkloads found) {
    if (found.namespace_missing) {
        answers_.erase(WizardStep::Namespace);
        return ask(WizardStep::Namespace, "namespace \"" + ns_ + "\" does not exist");
    }
    workloads_ = std::move(found);
    std::string text;
    if (!workloads_.error.empty()) {
        text = "Cannot list the workloads of " + ns_ + " (" + workloads_.error + "); type the target.\n";
    } else if (workloads_.items.empty()) {
        text = "No Deployment or StatefulSet in " + ns_ + " yet; a policy may target one before it exists.\n";
    } else {
        text = "Workloads in " + ns_ + ":\n";
        for (std::size_t i = 0; i < workloads_.items.size(); ++i) {
            const auto& w = workloads_.items[i];
            text += "  " + std::to_string(i + 1) + ") " + w.kind + " " + w.name + " (" + std::to_string(w.replicas) +
                    (w.replicas == 1 ? " replica)\n" : " replicas)\n");
        }
    }
    pending_text_ = std::move(text);
    // A list that changed between two passes: the earlier index may now be another workload.
    if (auto it = answers_.find(WizardStep::Target); it != answers_.end() && all_digits(it->second)) answers_.erase(it);
    return ask(WizardStep::Target);
}

WizardOutput PolicyWizard::answer(std::string_view line) {
    std::string value(trim(line));
    if (value.empty()) value = step_ == WizardStep::Action ? std::string() : default_for(step_);
    else if (value == kClear && optional_step(step_)) value.clear();
    if (value.empty() && !optional_step(step_)) {
        if (step_ == WizardStep::Action) return ask(step_, valid_ ? "answer c, w, e or q" : "answer e or q");
        return ask(step_, "an answer is required");
    }
    return accept(value);
}

WizardOutput PolicyWizard::accept(std::string_view v) {
    const WizardStep s = step_;
    auto keep = [&](std::string normal) {
        answers_[s] = std::move(normal);
        return after(s);
    };
    switch (s) {
        case WizardStep::Namespace: {
            if (auto why = dns1123_label_error(v); !why.empty())
                return ask(s, "\"" + std::string(v) + "\" is not a namespace name: it " + why);
            ns_ = std::string(v);
            answers_[s] = ns_;
            step_ = WizardStep::Target;
            WizardOutput out;
            out.action = WizardAction::ListWorkloads;
            out.ns = ns_;
            return out;
        }
        case WizardStep::Target: {
            kind_.clear();
            workload_.clear();
            selector_.clear();
            if (all_digits(v)) {
                const auto n = v.size() > 6 ? 0 : std::stoul(std::string(v));
                if (workloads_.items.empty())
                    return ask(s, "there is no list to choose from; type KIND/NAME or a selector");
                if (n < 1 || n > workloads_.items.size())
                    return ask(s, "choose a number from 1 to " + std::to_string(workloads_.items.size()));
                kind_ = workloads_.items[n - 1].kind;
                workload_ = workloads_.items[n - 1].name;
                return keep(std::string(v));
            }
            if (v.find('=') != std::string_view::npos) {
                for (auto pair : split(v, ',')) {
                    const auto eq = pair.find('=');
                    if (eq == std::string_view::npos || pair.find_first_of("=!", eq + 1) != std::string_view::npos ||
                        (eq > 0 && pair[eq - 1] == '!'))
                        return ask(s, "\"" + std::string(pair) +
                                          "\" is not key=value; other operators go in the YAML's matchExpressions");
                    const auto key = trim(pair.substr(0, eq));
                    const auto val = trim(pair.substr(eq + 1));
                    if (auto why = label_key_error(key); !why.empty())
                        return ask(s, "\"" + std::string(key) + "\" is not a label key: it " + why);
                    if (auto why = label_value_error(val); !why.empty())
                        return ask(s, "\"" + std::string(val) + "\" is not a label value: it " + why);
                    if (!selector_.emplace(key, val).second) {
                        const std::string dup(key);
                        selector_.clear();
                        return ask(s, "the label key \"" + dup + "\" is given twice");
                    }
                }
                return keep(std::string(v));
            }
            if (const auto slash = v.find('/'); slash != std::string_view::npos) {
                const auto kind = target_kind(v.substr(0, slash));
                if (!kind)
                    return ask(s, "\"" + std::string(v.substr(0, slash)) +
                                      "\" is not a kind a policy targets: " + std::string(kKindsText));
                const auto name = v.substr(slash + 1);
                if (auto why = dns1123_subdomain_error(name); !why.empty())
                    return ask(s, "\"" + std::string(name) + "\" is not a workload name: it " + why);
                kind_ = *kind;
                workload_ = std::string(name);
                return keep(std::string(v));
            }
            std::vector<const WizardWorkload*> named;
            for (const auto& w : workloads_.items)
                if (w.name == v) named.push_back(&w);
            if (named.empty())
                return ask(s, "no Deployment or StatefulSet \"" + std::string(v) + "\" in " + ns_ +
                                  "; type KIND/NAME to target one that does not exist yet");
            if (named.size() > 1)
                return ask(s, "more than one workload is named \"" + std::string(v) + "\"; type KIND/NAME");
            kind_ = named.front()->kind;
            workload_ = named.front()->name;
            return keep(std::string(v));
        }
        case WizardStep::SelectorKind: {
            const auto kind = target_kind(v);
            if (!kind)
                return ask(s, "\"" + std::string(v) + "\" is not a kind a policy targets: " + std::string(kKindsText));
            kind_ = *kind;
            return keep(*kind);
        }
        case WizardStep::Name:
            if (auto why = dns1123_subdomain_error(v); !why.empty())
                return ask(s, "\"" + std::string(v) + "\" is not an object name: it " + why);
            name_ = std::string(v);
            return keep(name_);
        case WizardStep::Mode: {
            const auto l = lower(v);
            if (l == "canary")
                return ask(s,
                           "Canary needs its steps (spec.lifecycle, docs/lifecycle.md): choose another mode, write "
                           "the file and edit it there");
            for (auto m : kModes)
                if (lower(m) == l) {
                    mode_ = std::string(m);
                    return keep(mode_);
                }
            return ask(s, "\"" + std::string(v) + "\" is not a mode: answer Observe, Recommend, OneShot or Auto");
        }
        case WizardStep::Source: {
            const auto l = lower(v);
            for (auto src : kSources)
                if (src == l) {
                    source_ = std::string(src);
                    return keep(source_);
                }
            return ask(s, "\"" + std::string(v) + "\" is not a source: answer prometheus, vpa, manual or defaults");
        }
        case WizardStep::PrometheusAddress:
            if (auto e = check_endpoint_url(kMetricsAddressField, v, options_.allow_local_addresses))
                return ask(s, e->message);
            return keep(std::string(v));
        case WizardStep::VpaName:
            if (auto why = dns1123_subdomain_error(v); !why.empty())
                return ask(s, "\"" + std::string(v) + "\" is not an object name: it " + why);
            return keep(std::string(v));
        case WizardStep::ManualContainer:
            if (auto why = dns1123_label_error(v); !why.empty())
                return ask(s, "\"" + std::string(v) + "\" is not a container name: it " + why);
            return keep(std::string(v));
        case WizardStep::ManualCpu:
        case WizardStep::ManualMemory: {
            if (v.empty()) {
                if (s == WizardStep::ManualMemory && answers_[WizardStep::ManualCpu].empty())
                    return ask(s, "give a cpu or a memory request: with neither, the source has nothing to say");
                return keep("");
            }
            auto q = positive_quantity(v);
            if (!q) return ask(s, q.error().message);
            return keep(std::string(v));
        }
        case WizardStep::CpuPercentile:
        case WizardStep::MemoryPercentile: {
            auto l = lower(v);
            if (l.starts_with('p')) l.erase(0, 1);
            if (l != "50" && l != "90" && l != "95" && l != "99")
                return ask(s, "\"" + std::string(v) + "\" is not a percentile the policy takes: 50, 90, 95 or 99");
            return keep(l);
        }
        case WizardStep::CpuMin:
        case WizardStep::CpuMax:
        case WizardStep::MemoryMin:
        case WizardStep::MemoryMax: {
            if (v.empty()) return keep("");
            const bool cpu = s == WizardStep::CpuMin || s == WizardStep::CpuMax;
            const bool is_max = s == WizardStep::CpuMax || s == WizardStep::MemoryMax;
            auto q = positive_quantity(v);
            if (!q) return ask(s, q.error().message);
            if (q.value() > bound_ceiling(cpu))
                return ask(s, std::string(v) + " is above the most a policy allows, " + bound_ceiling(cpu).to_string());
            if (is_max) {
                const auto& min_text = answers_[cpu ? WizardStep::CpuMin : WizardStep::MemoryMin];
                if (!min_text.empty() && Quantity::parse(min_text).value() > q.value())
                    return ask(s, "maxAllowed " + std::string(v) + " is below minAllowed " + min_text);
            }
            return keep(std::string(v));
        }
        case WizardStep::Windows: {
            windows_.clear();
            if (v.empty()) return keep("");
            auto w = parse_windows(v);
            if (!w) return ask(s, w.error().message);
            windows_ = std::move(w.value());
            return keep(std::string(v));
        }
        case WizardStep::Days: {
            days_.clear();
            if (v.empty()) return keep("");
            auto d = parse_days(v);
            if (!d) return ask(s, d.error().message);
            days_ = std::move(d.value());
            return keep(std::string(v));
        }
        case WizardStep::TimeZone: {
            if (!is_valid_zone_name(v) && v != "Local")
                return ask(s, "\"" + std::string(v) + "\" is not a time zone name such as UTC or Europe/Berlin");
            if (options_.check_zone)
                if (auto why = options_.check_zone(v); !why.empty()) return ask(s, why);
            return keep(std::string(v));
        }
        case WizardStep::Cooldown: {
            if (v.empty()) return keep("");
            auto d = parse_duration(v);
            if (!d) return ask(s, "\"" + std::string(v) + "\" is not a duration such as 90s, 5m or 1h30m");
            if (d.value() < Duration::zero() || (d.value() > Duration::zero() && d.value() < std::chrono::minutes(1)))
                return ask(s, "the cooldown must be 0 or at least 1m");
            return keep(std::string(v));
        }
        case WizardStep::Action: {
            const auto l = lower(v);
            if (valid_ && (l == "c" || l == "create")) {
                WizardOutput out;
                out.action = WizardAction::Create;
                out.ns = ns_;
                out.policy = policy();
                return out;
            }
            if (valid_ && (l == "w" || l == "write")) return ask(WizardStep::File);
            if (l == "e" || l == "edit") {
                pending_text_ = "Change the answers: Enter keeps each one, - clears an optional one.\n";
                return ask(WizardStep::Namespace);
            }
            if (l == "q" || l == "quit") {
                step_ = WizardStep::Done;
                WizardOutput out;
                out.action = WizardAction::Finish;
                out.text = "Nothing was created.\n";
                return out;
            }
            return ask(s, valid_ ? "answer c, w, e or q" : "the policy would be refused: answer e or q");
        }
        case WizardStep::File: {
            answers_[s] = std::string(v);
            WizardOutput out;
            out.action = WizardAction::WriteFile;
            out.path = std::string(v);
            out.policy = policy();
            return out;
        }
        case WizardStep::Done: break;
    }
    return end_of_input();
}

WizardOutput PolicyWizard::after(WizardStep s) {
    switch (s) {
        case WizardStep::Target: return ask(selector_.empty() ? WizardStep::Name : WizardStep::SelectorKind);
        case WizardStep::SelectorKind: return ask(WizardStep::Name);
        case WizardStep::Name: return ask(WizardStep::Mode);
        case WizardStep::Mode: return ask(WizardStep::Source);
        case WizardStep::Source:
            if (source_ == "prometheus") return ask(WizardStep::PrometheusAddress);
            if (source_ == "vpa") return ask(WizardStep::VpaName);
            if (source_ == "manual") return ask(WizardStep::ManualContainer);
            return ask(WizardStep::CpuPercentile);
        case WizardStep::PrometheusAddress:
        case WizardStep::VpaName:
        case WizardStep::ManualMemory: return ask(WizardStep::CpuPercentile);
        case WizardStep::ManualContainer: return ask(WizardStep::ManualCpu);
        case WizardStep::ManualCpu: return ask(WizardStep::ManualMemory);
        case WizardStep::CpuPercentile: return ask(WizardStep::CpuMin);
        case WizardStep::CpuMin: return ask(WizardStep::CpuMax);
        case WizardStep::CpuMax: return ask(WizardStep::MemoryPercentile);
        case WizardStep::MemoryPercentile: return ask(WizardStep::MemoryMin);
        case WizardStep::MemoryMin: return ask(WizardStep::MemoryMax);
        case WizardStep::MemoryMax:
            // The schedule and the cooldown only hold resizes: Observe and Recommend make none.
            if (resizes()) return ask(WizardStep::Windows);
            break;
        case WizardStep::Windows:
            if (!windows_.empty()) return ask(WizardStep::Days);
            return ask(WizardStep::Cooldown);
        case WizardStep::Days: return ask(WizardStep::TimeZone);
        case WizardStep::TimeZone: return ask(WizardStep::Cooldown);
        default: break;
    }
    // Every question is answered: the shell checks the policy.
    step_ = WizardStep::Action;
    valid_ = false;
    WizardOutput out;
    out.action = WizardAction::Validate;
    out.ns = ns_;
    out.policy = policy();
    return out;
}

WizardOutput PolicyWizard::validated(std::string error) {
    valid_ = error.empty();
    if (!valid_) {
        pending_text_ = "The policy would be refused: " + error + "\n";
        return ask(WizardStep::Action);
    }
    auto out = ask(WizardStep::Action);
    out.show_policy = true;
    out.policy = policy();
    return out;
}

WizardOutput PolicyWizard::created(std::string error) {
    if (!error.empty()) {
        pending_text_ = "error: " + error + "\n";
        return ask(WizardStep::Action);
    }
    step_ = WizardStep::Done;
    WizardOutput out;
    out.action = WizardAction::Finish;
    out.text = "attunepolicy.attune.io/" + name_ + " created\n";
    return out;
}

WizardOutput PolicyWizard::written(std::string error) {
    if (!error.empty()) return ask(WizardStep::File, error);
    step_ = WizardStep::Done;
    WizardOutput out;
    out.action = WizardAction::Finish;
    out.text = "Wrote " + answers_[WizardStep::File] + "; create it with: kubectl apply -f " +
               answers_[WizardStep::File] + "\n";
    return out;
}

json::value PolicyWizard::policy() const {
    auto answer_of = [&](WizardStep s) {
        auto it = answers_.find(s);
        return it == answers_.end() ? std::string() : it->second;
    };
    json::object target{{"kind", kind_}};
    if (selector_.empty()) {
        target["name"] = workload_;
    } else {
        json::object labels;
        for (const auto& [k, v] : selector_) labels[k] = v;
        target["selector"] = json::object{{"matchLabels", std::move(labels)}};
    }
    json::object spec{{"targetRef", std::move(target)}};

    if (source_ == "prometheus") {
        spec["metricsSource"] = {{"prometheus", {{"address", answer_of(WizardStep::PrometheusAddress)}}}};
    } else if (source_ == "vpa") {
        spec["metricsSource"] = {{"vpa", {{"name", answer_of(WizardStep::VpaName)}}}};
    } else if (source_ == "manual") {
        json::object requests;
        if (auto c = answer_of(WizardStep::ManualCpu); !c.empty()) requests["cpu"] = c;
        if (auto m = answer_of(WizardStep::ManualMemory); !m.empty()) requests["memory"] = m;
        json::object container{{"name", answer_of(WizardStep::ManualContainer)},
                               {"resources", json::object{{"requests", std::move(requests)}}}};
        spec["metricsSource"] = {{"manual", {{"containers", json::array{std::move(container)}}}}};
    }

    auto resource = [&](WizardStep percentile, WizardStep min, WizardStep max) {
        json::object r;
        if (auto p = answer_of(percentile); !p.empty()) r["percentile"] = std::stoi(p);
        if (auto v = answer_of(min); !v.empty()) r["minAllowed"] = v;
        if (auto v = answer_of(max); !v.empty()) r["maxAllowed"] = v;
        return r;
    };
    spec["cpu"] = resource(WizardStep::CpuPercentile, WizardStep::CpuMin, WizardStep::CpuMax);
    spec["memory"] = resource(WizardStep::MemoryPercentile, WizardStep::MemoryMin, WizardStep::MemoryMax);

    json::object strategy{{"type", mode_}};
    if (resizes()) {
        if (!windows_.empty()) {
            json::array windows;
            for (const auto& [start, end] : windows_) windows.push_back(json::object{{"start", start}, {"end", end}});
            json::object schedule{{"windows", std::move(windows)}};
            if (!days_.empty()) schedule["daysOfWeek"] = json::array(days_.begin(), days_.end());
            schedule["timezone"] = answer_of(WizardStep::TimeZone).empty() ? "UTC" : answer_of(WizardStep::TimeZone);
            strategy["schedule"] = std::move(schedule);
        }
        if (auto c = answer_of(WizardStep::Cooldown); !c.empty()) strategy["cooldown"] = c;
    }
    spec["updateStrategy"] = std::move(strategy);

    return json::object{{"apiVersion", "attune.io/v1alpha1"},
                        {"kind", "AttunePolicy"},
                        {"metadata", {{"name", name_}, {"namespace", ns_}}},
                        {"spec", std::move(spec)}};
}

}  // namespace attune::core
