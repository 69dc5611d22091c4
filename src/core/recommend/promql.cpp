#include "attune/core/recommend/promql.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <vector>

namespace attune::core {

namespace {

// Pod names come from generateName: the base is cut to 58 characters
// (63 minus the 5 random ones), so long owner names lose their suffix shape.
constexpr std::size_t kGeneratedBaseLimit = 58;

struct KindShape {
    std::string_view kind;
    std::string_view suffix;      // after the owner name
    std::size_t max_exact_name;   // longer owner names get truncated pod names
};

// Deployment: name-<rs hash, up to 10>-<5>: base name+12 <= 58 -> 46.
// Job: name-[index-]<5>; CronJob: name-<8-digit minutes>-[index-]<5>: margins for the index.
constexpr std::array<KindShape, 6> kShapes{{
    {"Deployment", "-[a-z0-9]+-[a-z0-9]{5}", 46},
    {"StatefulSet", "-[0-9]+", 200},
    {"DaemonSet", "-[a-z0-9]{5}", 57},
    {"ReplicaSet", "-[a-z0-9]{5}", 57},
    {"Job", "-([0-9]+-)?[a-z0-9]{5}", 50},
    {"CronJob", "-[0-9]+-([0-9]+-)?[a-z0-9]{5}", 45},
}};

const KindShape* shape_of(std::string_view kind) {
    for (const auto& s : kShapes)
        if (s.kind == kind) return &s;
    return nullptr;
}

std::string matchers(std::string_view ns, std::string_view pod_regex) {
    return "namespace=\"" + promql_string_escape(ns) + "\",pod=~\"" + promql_string_escape(pod_regex) +
           "\",container!=\"\",container!=\"POD\"";
}

}  // namespace

std::string promql_string_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 8);
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (ch) {
            case '\\': out += "\\\\"; break;
            case '"': out += "\\\""; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20 || c == 0x7f) {
                    char buf[5];
                    std::snprintf(buf, sizeof buf, "\\x%02x", c);
                    out += buf;
                } else {
                    out += ch;
                }
        }
    }
    return out;
}

std::string regex_quote(std::string_view s) {
    static constexpr std::string_view kMeta = "\\.+*?()|[]{}^$";
    std::string out;
    out.reserve(s.size() + 4);
    for (const char ch : s) {
        if (kMeta.find(ch) != std::string_view::npos) out += '\\';
        out += ch;
    }
    return out;
}

std::string promql_duration(std::chrono::seconds d) {
    const auto s = d.count();
    if (s <= 0) return "5m";
    if (s % 3600 == 0) return std::to_string(s / 3600) + "h";
    if (s % 60 == 0) return std::to_string(s / 60) + "m";
    return std::to_string(s) + "s";
}

std::string pod_regex_from_names(std::span<const std::string> names, std::size_t max_pods) {
    std::vector<std::string> sorted(names.begin(), names.end());
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    std::vector<std::string> picked;
    if (max_pods == 0 || sorted.size() <= max_pods) {
        picked = std::move(sorted);
    } else {
        // Evenly spaced over the sorted names; strictly increasing indices, so no duplicates.
        for (std::size_t i = 0; i < max_pods; ++i) picked.push_back(sorted[i * sorted.size() / max_pods]);
    }
    std::string out;
    for (const auto& n : picked) {
        if (!out.empty()) out += '|';
        out += regex_quote(n);
    }
    return out;
}

Result<std::string> pod_regex_for_owner(std::string_view kind, std::string_view name) {
    const auto* shape = shape_of(kind);
    if (!shape) return make_error("unknown_kind", "no pod name pattern for workload kind \"" + std::string(kind) + "\"");
    return regex_quote(name) + std::string(shape->suffix);
}

Result<std::string> workload_pod_regex(std::string_view kind, std::string_view name,
                                       std::span<const std::string> live_pod_names, std::size_t max_pods) {
    const auto* shape = shape_of(kind);
    if (!shape) return make_error("unknown_kind", "no pod name pattern for workload kind \"" + std::string(kind) + "\"");
    const bool truncated = name.size() > shape->max_exact_name;
    if (!live_pod_names.empty() && (live_pod_names.size() > max_pods || truncated))
        return pod_regex_from_names(live_pod_names, max_pods);
    if (truncated) return regex_quote((std::string(name) + "-").substr(0, kGeneratedBaseLimit)) + ".*";
    return regex_quote(name) + std::string(shape->suffix);
}

bool is_metric_name(std::string_view s) {
    if (s.empty()) return false;
    auto head = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':'; };
    if (!head(s[0])) return false;
    return std::all_of(s.begin() + 1, s.end(),
                       [&](char c) { return head(c) || std::isdigit(static_cast<unsigned char>(c)); });
}

Result<std::string> usage_query(ResourceKind resource, const UsageQuerySpec& spec) {
    const std::string& recording =
        resource == ResourceKind::Cpu ? spec.cpu_recording_metric : spec.memory_recording_metric;
    if (!recording.empty() && !is_metric_name(recording)) {
        return make_error("invalid_recording_metric",
                          std::string(resource == ResourceKind::Cpu ? "cpuRecordingMetric" : "memoryRecordingMetric") +
                              " \"" + recording + "\" is not a metric name (^[a-zA-Z_:][a-zA-Z0-9_:]*$)");
    }
    const std::string m = "{" + matchers(spec.namespace_, spec.pod_regex) + "}";
    std::string inner;
    if (!recording.empty()) {
        inner = recording + m;
    } else if (resource == ResourceKind::Cpu) {
        inner = "rate(container_cpu_usage_seconds_total" + m + "[" + promql_duration(spec.rate_window) + "])";
    } else {
        inner = "container_memory_working_set_bytes" + m;
    }
    switch (spec.aggregation) {
        case PodAggregation::Max: return "max by (container) (" + inner + ")";
        case PodAggregation::Avg: return "avg by (container) (" + inner + ")";
        case PodAggregation::None: return "max by (pod, container) (" + inner + ")";
    }
    return "max by (container) (" + inner + ")";
}

std::string throttling_ratio_query(std::string_view ns, std::string_view pod_regex, std::chrono::seconds window) {
    const std::string m = "{" + matchers(ns, pod_regex) + "}[" + promql_duration(window) + "]";
    return "sum by (pod) (rate(container_cpu_cfs_throttled_periods_total" + m +
           ")) / sum by (pod) (rate(container_cpu_cfs_periods_total" + m + "))";
}

std::string cfs_periods_increase_query(std::string_view ns, std::string_view pod, std::chrono::seconds window,
                                       bool throttled) {
    return std::string("sum(increase(container_cpu_cfs_") + (throttled ? "throttled_" : "") +
           "periods_total{namespace=\"" + promql_string_escape(ns) + "\",pod=\"" + promql_string_escape(pod) +
           "\",container!=\"\",container!=\"POD\"}[" + promql_duration(window) + "]))";
}

Result<std::string> render_guardrail_query(std::string_view t, const GuardrailVars& vars) {
    auto fail = [](std::string what) { return make_error("invalid_guardrail_template", std::move(what)); };
    auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    std::string out;
    std::size_t i = 0;
    while (i < t.size()) {
        const auto open = t.find("{{", i);
        const auto close_stray = t.find("}}", i);
        if (close_stray != std::string_view::npos && (open == std::string_view::npos || close_stray < open))
            return fail("\"}}\" without \"{{\" at offset " + std::to_string(close_stray));
        if (open == std::string_view::npos) {
            out.append(t.substr(i));
            break;
        }
        out.append(t.substr(i, open - i));
        const auto close = t.find("}}", open + 2);
        if (close == std::string_view::npos) return fail("unterminated \"{{\" at offset " + std::to_string(open));
        std::string_view action = t.substr(open + 2, close - open - 2);
        bool trim_left = false, trim_right = false;
        // Go: "{{- " and " -}}" trim the whitespace beside the action.
        if (action.size() >= 2 && action[0] == '-' && is_space(action[1])) {
            trim_left = true;
            action.remove_prefix(2);
        }
        if (action.size() >= 2 && action.back() == '-' && is_space(action[action.size() - 2])) {
            trim_right = true;
            action.remove_suffix(2);
        }
        while (!action.empty() && is_space(action.front())) action.remove_prefix(1);
        while (!action.empty() && is_space(action.back())) action.remove_suffix(1);
        const std::string* value = nullptr;
        if (action == ".Namespace") value = &vars.namespace_;
        else if (action == ".WorkloadName") value = &vars.workload;
        else if (action == ".PodName") value = &vars.pod;
        if (!value) {
            return fail("unsupported template action {{" + std::string(action) +
                        "}}: only {{ .Namespace }}, {{ .WorkloadName }} and {{ .PodName }} are supported");
        }
        if (trim_left)
            while (!out.empty() && is_space(out.back())) out.pop_back();
        out += promql_string_escape(*value);
        i = close + 2;
        if (trim_right)
            while (i < t.size() && is_space(t[i])) ++i;
    }
    return out;
}

namespace {

bool ident_head(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':'; }
bool ident_tail(char c) { return ident_head(c) || std::isdigit(static_cast<unsigned char>(c)); }

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool one_of(std::string_view s, std::initializer_list<std::string_view> set) {
    return std::find(set.begin(), set.end(), s) != set.end();
}

// A lexer just deep enough to find vector selectors: strings, comments,
// matcher sets, ranges, numbers, identifiers and label lists.
class NamespaceForcer {
public:
    NamespaceForcer(std::string_view q, std::string_view ns)
        : q_(q), matcher_("namespace=\"" + promql_string_escape(ns) + "\"") {}

    Result<std::string> run() {
        while (i_ < q_.size()) {
            const char c = q_[i_];
            if (c == '"' || c == '\'' || c == '`') {
                if (!copy_string()) return error("unterminated string");
            } else if (c == '#') {
                const auto eol = q_.find('\n', i_);
                copy_to(eol == std::string_view::npos ? q_.size() : eol);
            } else if (c == '{') {
                if (!copy_matchers()) return error("unterminated {");
            } else if (c == '[') {
                const auto end = q_.find(']', i_);
                if (end == std::string_view::npos) return error("unterminated [");
                copy_to(end + 1);
            } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                       (c == '.' && i_ + 1 < q_.size() && std::isdigit(static_cast<unsigned char>(q_[i_ + 1])))) {
                copy_number();
            } else if (ident_head(c)) {
                if (!identifier()) return error("unterminated label list");
            } else {
                out_ += c;
                ++i_;
            }
        }
        return out_;
    }

private:
    core::Error error(const std::string& what) const {
        return make_error("invalid_promql", what + " in query \"" + std::string(q_) + "\"");
    }

    void copy_to(std::size_t end) {
        out_.append(q_.substr(i_, end - i_));
        i_ = end;
    }

    bool copy_string() {
        const char quote = q_[i_];
        std::size_t j = i_ + 1;
        while (j < q_.size() && q_[j] != quote) {
            if (q_[j] == '\\' && quote != '`') ++j;
            ++j;
        }
        if (j >= q_.size()) return false;
        copy_to(j + 1);
        return true;
    }

    // "{...}": our matcher goes first; the rest is copied as written.
    bool copy_matchers() {
        out_ += '{';
        ++i_;
        out_ += matcher_;
        std::size_t k = i_;
        while (k < q_.size() && std::isspace(static_cast<unsigned char>(q_[k]))) ++k;
        if (k < q_.size() && q_[k] != '}') out_ += ',';
        while (i_ < q_.size() && q_[i_] != '}') {
            if (q_[i_] == '"' || q_[i_] == '\'' || q_[i_] == '`') {
                if (!copy_string()) return false;
            } else {
                out_ += q_[i_++];
            }
        }
        if (i_ >= q_.size()) return false;
        out_ += '}';
        ++i_;
        return true;
    }

    void copy_number() {
        std::size_t j = i_;
        while (j < q_.size()) {
            const char c = q_[j];
            if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_') {
                ++j;
            } else if ((c == '+' || c == '-') && (q_[j - 1] == 'e' || q_[j - 1] == 'E') && j + 1 < q_.size() &&
                       std::isdigit(static_cast<unsigned char>(q_[j + 1]))) {
                ++j;
            } else {
                break;
            }
        }
        copy_to(j);
    }

    // The next character after spaces and comments, without consuming.
    std::size_t peek(std::size_t j) const {
        while (j < q_.size()) {
            if (std::isspace(static_cast<unsigned char>(q_[j]))) {
                ++j;
            } else if (q_[j] == '#') {
                const auto eol = q_.find('\n', j);
                j = eol == std::string_view::npos ? q_.size() : eol;
            } else {
                break;
            }
        }
        return j;
    }

    std::string_view word_at(std::size_t j) const {
        std::size_t k = j;
        while (k < q_.size() && ident_tail(q_[k])) ++k;
        return q_.substr(j, k - j);
    }

    bool identifier() {
        std::size_t j = i_;
        while (j < q_.size() && ident_tail(q_[j])) ++j;
        const std::string_view word = q_.substr(i_, j - i_);
        const std::string w = lower(word);
        copy_to(j);
        if (one_of(w, {"by", "without", "on", "ignoring", "group_left", "group_right"})) {
            const std::size_t k = peek(i_);
            if (k < q_.size() && q_[k] == '(') {  // a label list, not a selector
                const auto end = q_.find(')', k);
                if (end == std::string_view::npos) return false;
                copy_to(end + 1);
            }
            return true;
        }
        if (one_of(w, {"and", "or", "unless", "bool", "offset", "atan2", "inf", "nan"})) return true;
        const std::size_t k = peek(i_);
        if (k < q_.size() && q_[k] == '(') return true;  // a function or an aggregation
        if (k < q_.size() && q_[k] == '{') return true;  // the matcher set is handled next
        if (k < q_.size() && ident_head(q_[k]) && one_of(lower(word_at(k)), {"by", "without"}))
            return true;  // "sum by (x) (...)"
        out_ += "{" + matcher_ + "}";  // a bare metric name
        return true;
    }

    std::string_view q_;
    std::string matcher_;
    std::string out_;
    std::size_t i_ = 0;
};

}  // namespace

Result<std::string> force_namespace(std::string_view query, std::string_view ns) {
    return NamespaceForcer(query, ns).run();
}

}  // namespace attune::core
