#include <attune/controller/label_selector.hpp>

#include <boost/json/object.hpp>

#include <algorithm>

namespace attune::controller {
namespace json = boost::json;

bool label_requirement::matches(const label_map& labels) const {
    auto it = labels.find(key);
    const bool has = it != labels.end();
    const auto in_values = [&] { return has && std::find(values.begin(), values.end(), it->second) != values.end(); };
    switch (what) {
        case op::in: return in_values();
        case op::not_in: return !in_values();  // like apimachinery: a missing key satisfies NotIn
        case op::exists: return has;
        case op::does_not_exist: return !has;
    }
    return false;
}

bool label_selector::matches(const label_map& labels) const {
    for (const auto& [k, v] : match_labels) {
        auto it = labels.find(k);
        if (it == labels.end() || it->second != v) return false;
    }
    return std::all_of(expressions.begin(), expressions.end(),
                       [&](const label_requirement& r) { return r.matches(labels); });
}

namespace {
core::error invalid(std::string msg) { return core::make_error("invalid_selector", std::move(msg)); }
}  // namespace

core::result<label_selector> parse_label_selector(const json::value* selector) {
    label_selector out;
    if (selector == nullptr || selector->is_null()) return out;
    const auto* obj = selector->if_object();
    if (!obj) return invalid("selector is not an object");
    if (const auto* ml = obj->if_contains("matchLabels"); ml && !ml->is_null()) {
        const auto* m = ml->if_object();
        if (!m) return invalid("selector.matchLabels is not an object");
        for (const auto& [k, v] : *m) {
            if (!v.is_string()) return invalid("selector.matchLabels." + std::string(k) + " is not a string");
            out.match_labels.emplace(std::string(k), std::string(v.get_string()));
        }
    }
    if (const auto* me = obj->if_contains("matchExpressions"); me && !me->is_null()) {
        const auto* arr = me->if_array();
        if (!arr) return invalid("selector.matchExpressions is not a list");
        for (std::size_t i = 0; i < arr->size(); ++i) {
            const auto where = "selector.matchExpressions[" + std::to_string(i) + "]";
            const auto* e = (*arr)[i].if_object();
            if (!e) return invalid(where + " is not an object");
            label_requirement r;
            const auto* key = e->if_contains("key");
            const auto* op = e->if_contains("operator");
            if (!key || !key->is_string() || key->get_string().empty()) return invalid(where + ".key is missing");
            if (!op || !op->is_string()) return invalid(where + ".operator is missing");
            r.key = key->get_string();
            const std::string_view o = op->get_string();
            if (o == "In") r.what = label_requirement::op::in;
            else if (o == "NotIn") r.what = label_requirement::op::not_in;
            else if (o == "Exists") r.what = label_requirement::op::exists;
            else if (o == "DoesNotExist") r.what = label_requirement::op::does_not_exist;
            else return invalid(where + ".operator \"" + std::string(o) + "\" is not In, NotIn, Exists or DoesNotExist");
            if (const auto* vals = e->if_contains("values"); vals && !vals->is_null()) {
                const auto* va = vals->if_array();
                if (!va) return invalid(where + ".values is not a list");
                for (const auto& v : *va) {
                    if (!v.is_string()) return invalid(where + ".values holds a non-string");
                    r.values.emplace_back(v.get_string());
                }
            }
            const bool set_op = r.what == label_requirement::op::in || r.what == label_requirement::op::not_in;
            if (set_op && r.values.empty()) return invalid(where + ": " + std::string(o) + " needs values");
            if (!set_op && !r.values.empty()) return invalid(where + ": " + std::string(o) + " takes no values");
            out.expressions.push_back(std::move(r));
        }
    }
    return out;
}

label_map labels_of(const json::value& obj) {
    label_map out;
    const auto* o = obj.if_object();
    if (!o) return out;
    const auto* md = o->if_contains("metadata");
    if (!md || !md->is_object()) return out;
    const auto* labels = md->get_object().if_contains("labels");
    if (!labels || !labels->is_object()) return out;
    for (const auto& [k, v] : labels->get_object())
        if (v.is_string()) out.emplace(std::string(k), std::string(v.get_string()));
    return out;
}

}  // namespace attune::controller
