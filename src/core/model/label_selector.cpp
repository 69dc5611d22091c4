#include "attune/core/model/label_selector.hpp"

#include <boost/json.hpp>

#include <algorithm>

#include "attune/core/util/json_path.hpp"

namespace attune::core {
namespace json = boost::json;

bool LabelRequirement::matches(const LabelMap& labels) const {
    auto it = labels.find(key);
    const bool has = it != labels.end();
    const auto in_values = [&] { return has && std::find(values.begin(), values.end(), it->second) != values.end(); };
    switch (op) {
        case Op::In: return in_values();
        case Op::NotIn: return !in_values();  // like apimachinery: a missing key satisfies NotIn
        case Op::Exists: return has;
        case Op::DoesNotExist: return !has;
    }
    return false;
}

bool LabelSelector::matches(const LabelMap& labels) const {
    for (const auto& [k, v] : match_labels) {
        auto it = labels.find(k);
        if (it == labels.end() || it->second != v) return false;
    }
    return std::all_of(expressions.begin(), expressions.end(),
                       [&](const LabelRequirement& r) { return r.matches(labels); });
}

namespace {
Error invalid(std::string msg) { return make_error("invalid_selector", std::move(msg)); }
}  // namespace

Result<LabelSelector> parse_label_selector(const json::value* selector, std::string_view path) {
    const std::string at(path);
    LabelSelector out;
    if (selector == nullptr || selector->is_null()) return out;
    if (!selector->is_object()) return invalid(at + " is not an object");
    if (const auto* ml = json_at(*selector, {"matchLabels"})) {
        const auto* m = ml->if_object();
        if (!m) return invalid(at + ".matchLabels is not an object");
        for (const auto& [k, v] : *m) {
            if (!v.is_string()) return invalid(at + ".matchLabels." + std::string(k) + " is not a string");
            out.match_labels.emplace(std::string(k), std::string(v.get_string()));
        }
    }
    if (const auto* me = json_at(*selector, {"matchExpressions"})) {
        const auto* arr = me->if_array();
        if (!arr) return invalid(at + ".matchExpressions is not a list");
        for (std::size_t i = 0; i < arr->size(); ++i) {
            const auto where = at + ".matchExpressions[" + std::to_string(i) + "]";
            const auto& e = (*arr)[i];
            if (!e.is_object()) return invalid(where + " is not an object");
            LabelRequirement r;
            const auto key = string_at(e, {"key"});
            const auto* op = json_at(e, {"operator"});
            if (key.empty()) return invalid(where + ".key is missing");
            if (!op || !op->is_string()) return invalid(where + ".operator is missing");
            r.key = std::string(key);
            const std::string_view o = op->get_string();
            if (o == "In") r.op = LabelRequirement::Op::In;
            else if (o == "NotIn") r.op = LabelRequirement::Op::NotIn;
            else if (o == "Exists") r.op = LabelRequirement::Op::Exists;
            else if (o == "DoesNotExist") r.op = LabelRequirement::Op::DoesNotExist;
            else return invalid(where + ".operator \"" + std::string(o) + "\" is not In, NotIn, Exists or DoesNotExist");
            if (const auto* vals = json_at(e, {"values"})) {
                const auto* va = vals->if_array();
                if (!va) return invalid(where + ".values is not a list");
                for (const auto& v : *va) {
                    if (!v.is_string()) return invalid(where + ".values holds a non-string");
                    r.values.emplace_back(v.get_string());
                }
            }
            const bool set_op = r.op == LabelRequirement::Op::In || r.op == LabelRequirement::Op::NotIn;
            if (set_op && r.values.empty()) return invalid(where + ": " + std::string(o) + " needs values");
            if (!set_op && !r.values.empty()) return invalid(where + ": " + std::string(o) + " takes no values");
            out.expressions.push_back(std::move(r));
        }
    }
    return out;
}

namespace {
LabelMap string_map(const json::value& obj, std::string_view field) {
    LabelMap out;
    if (const auto* m = object_at(obj, {"metadata", field})) {
        for (const auto& [k, v] : *m)
            if (v.is_string()) out.emplace(std::string(k), std::string(v.get_string()));
    }
    return out;
}
}  // namespace

LabelMap labels_of(const json::value& obj) { return string_map(obj, "labels"); }
LabelMap annotations_of(const json::value& obj) { return string_map(obj, "annotations"); }

}  // namespace attune::core
