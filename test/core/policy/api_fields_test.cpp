// Holds the decoders and the defaults merge to the field table that
// hack/crd-gen.py writes from the CRD schemas (test/data/api_fields.json;
// docs/api.md, "Where a field is described"). A field is decoded when
// leaving it out or setting one of its sample values changes what the
// decoder returns (a value or an error), and merged when, set on a defaults
// object only, it so changes the EffectivePolicy of a policy that leaves it
// unset. A field its block requires is judged by its sample values alone.
#include <boost/json.hpp>

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "attune/core/policy/policy.hpp"
#include "golden.hpp"

namespace attune::core {
namespace {

namespace json = boost::json;

struct Row {
    std::string path;
    bool required = false;
    bool leaf = false;
    std::vector<json::value> samples;
    bool not_decoded = false;
    bool not_merged = false;
};

// One kind's rows, by path.
using Table = std::map<std::string, Row>;

const json::object& field_table() {
    static const json::value table = testing::load_golden("api_fields.json");
    return table.as_object();
}

Table rows_of(std::string_view kind) {
    Table t;
    for (const auto& v : field_table().at(kind).as_array()) {
        const auto& o = v.as_object();
        Row r;
        r.path = std::string(o.at("path").as_string());
        r.required = o.at("required").as_bool();
        if (const auto* s = o.if_contains("samples")) {
            r.leaf = true;
            r.samples.assign(s->as_array().begin(), s->as_array().end());
        }
        r.not_decoded = o.contains("notDecoded");
        r.not_merged = o.contains("notMerged");
        t.emplace(r.path, std::move(r));
    }
    return t;
}

std::vector<std::string> segments(std::string_view path) {
    std::vector<std::string> out;
    for (std::size_t start = 0;;) {
        const auto dot = path.find('.', start);
        out.emplace_back(path.substr(start, dot - start));
        if (dot == std::string_view::npos) return out;
        start = dot + 1;
    }
}

std::string parent_of(std::string_view path) { return std::string(path.substr(0, path.rfind('.'))); }

// The object at `path` ("spec.a.b[].c"), made as needed; "b[]" is the first
// element of the list b.
json::object& object_at(json::object& root, std::string_view path) {
    json::object* o = &root;
    for (const auto& seg : segments(path)) {
        if (seg.ends_with("[]")) {
            auto& list = (*o)[seg.substr(0, seg.size() - 2)];
            if (!list.is_array() || list.as_array().empty()) list = json::array{json::object{}};
            o = &list.as_array()[0].as_object();
        } else {
            auto& v = (*o)[seg];
            if (!v.is_object()) v = json::object{};
            o = &v.as_object();
        }
    }
    return *o;
}

// Sets what the schema requires under the object at `path`, recursively.
void fill_required(const Table& t, json::object& root, const std::string& path) {
    object_at(root, path);
    for (const auto& [p, r] : t) {
        if (!r.required || parent_of(p) != path) continue;
        if (!r.leaf) {
            fill_required(t, root, p);
            continue;
        }
        auto& parent = object_at(root, path);
        const auto key = segments(p).back();
        if (!parent.contains(key)) parent[key] = r.samples.front();
    }
}

// `base` with the leaf at `path` set to `value`, and everything its
// ancestors require.
json::object with_field(const Table& t, json::object base, const std::string& path, const json::value& value) {
    const auto segs = segments(path);
    std::string at = segs.front();
    for (std::size_t i = 1; i + 1 < segs.size(); ++i) {
        at += "." + segs[i];
        fill_required(t, base, at);
    }
    object_at(base, parent_of(path))[segs.back()] = value;
    return base;
}

// `doc` without the field at `path` (a list element takes its list along).
json::object without(json::object doc, const std::string& path) {
    auto key = segments(path).back();
    if (key.ends_with("[]")) key.resize(key.size() - 2);
    object_at(doc, parent_of(path)).erase(key);
    return doc;
}

// Two CEL rules the decoder repeats: targetRef takes exactly one of name
// and selector, so a selector field replaces the base's name; and In needs
// values, so a requirement starts as Exists.
json::object base_for(std::string_view kind, const std::string& path) {
    json::object doc = {{"apiVersion", "attune.io/v1alpha1"},
                        {"kind", kind},
                        {"metadata", {{"namespace", "shop"}, {"name", "web"}}}};
    if (kind == "AttunePolicy") {
        doc["spec"] = {{"targetRef", {{"kind", "Deployment"}, {"name", "web"}}},
                       {"cpu", json::object{}},
                       {"memory", json::object{}}};
        if (path.starts_with("spec.targetRef.selector")) object_at(doc, "spec.targetRef").erase("name");
        if (path.starts_with("spec.targetRef.selector.matchExpressions[]"))
            object_at(doc, "spec.targetRef.selector.matchExpressions[]")["operator"] = "Exists";
    } else {
        doc["spec"] = json::object{};
    }
    return doc;
}

template <class T>
struct Outcome {
    std::optional<T> value;
    std::string error;
    friend bool operator==(const Outcome&, const Outcome&) = default;
};

Outcome<AttunePolicySpec> decode_policy(const json::object& doc) {
    auto r = decode_attune_policy(doc);
    if (!r) return {std::nullopt, r.error().message};
    return {r.value().spec, ""};
}

Outcome<DefaultsSpec> decode_defaults(const json::object& doc) {
    auto r = decode_attune_defaults(doc);
    if (!r) return {std::nullopt, r.error().message};
    return {r.value().spec, ""};
}

template <class T>
bool all_equal(const std::vector<T>& v) {
    for (const auto& x : v)
        if (!(x == v.front())) return false;
    return true;
}

// The documents a leaf is judged by: one per sample and, unless its block
// requires it (then leaving it out proves only that it is required), one
// without it.
std::vector<json::object> variants(std::string_view kind, const Table& t, const Row& r) {
    const auto base = base_for(kind, r.path);
    std::vector<json::object> docs;
    for (const auto& s : r.samples) docs.push_back(with_field(t, base, r.path, s));
    if (!r.required) docs.push_back(without(docs.front(), r.path));
    return docs;
}

// Whether some value of the leaf changes what the decoder returns.
bool decoded(std::string_view kind, const Table& t, const Row& r) {
    const auto docs = variants(kind, t, r);
    if (kind == "AttunePolicy") {
        std::vector<Outcome<AttunePolicySpec>> seen;
        for (const auto& d : docs) seen.push_back(decode_policy(d));
        return !all_equal(seen);
    }
    std::vector<Outcome<DefaultsSpec>> seen;
    for (const auto& d : docs) seen.push_back(decode_defaults(d));
    return !all_equal(seen);
}

// The effective policy of a policy that sets nothing a defaults object
// could, under `doc` at its scope; nullopt when `doc` does not decode.
std::optional<EffectivePolicy> effective_under(std::string_view kind, const json::object& doc) {
    auto d = decode_attune_defaults(doc);
    if (!d) return std::nullopt;
    const auto policy = decode_attune_policy(base_for("AttunePolicy", "")).value();
    const std::vector<AttuneDefaults> scope{d.value()};
    const bool cluster = kind == "AttuneDefaults";
    auto e = merge_effective_policy(policy, cluster ? scope : std::vector<AttuneDefaults>{},
                                    cluster ? std::vector<AttuneDefaults>{} : scope);
    // Where a value came from is bookkeeping; the merge test is about the values.
    e.inherited.clear();
    e.clamped.clear();
    return e;
}

// Whether some value of the leaf, set on a defaults object, changes the
// effective policy (documents that do not decode do not count).
bool merged(std::string_view kind, const Table& t, const Row& r) {
    std::vector<EffectivePolicy> seen;
    for (const auto& d : variants(kind, t, r))
        if (auto e = effective_under(kind, d)) seen.push_back(std::move(*e));
    return seen.size() > 1 && !all_equal(seen);
}

std::string list(const std::vector<std::string>& paths) {
    std::string out;
    for (const auto& p : paths) out += "\n  " + p;
    return out;
}

constexpr std::string_view kKinds[] = {"AttunePolicy", "AttuneDefaults", "AttuneNamespaceDefaults"};
constexpr std::string_view kDefaultsKinds[] = {"AttuneDefaults", "AttuneNamespaceDefaults"};

TEST(ApiFields, TableListsTheFieldsOfEveryKind) {
    for (auto kind : kKinds) {
        const auto t = rows_of(kind);
        EXPECT_TRUE(t.contains("spec.cpu.overhead")) << kind;
        EXPECT_TRUE(t.contains("spec.updateStrategy.sloGuardrails[].name")) << kind;
        EXPECT_TRUE(t.at("spec.updateStrategy.sloGuardrails[].name").required) << kind;
    }
    EXPECT_TRUE(rows_of("AttunePolicy").contains("spec.lifecycle.analysis.cpuThrottling.window"));
    EXPECT_FALSE(rows_of("AttuneDefaults").contains("spec.targetRef"));
}

TEST(ApiFields, EveryCrdFieldIsDecoded) {
    for (auto kind : kKinds) {
        const auto t = rows_of(kind);
        std::vector<std::string> ignored, listed_but_read;
        for (const auto& [path, r] : t) {
            if (!r.leaf) continue;
            const bool read = decoded(kind, t, r);
            if (!read && !r.not_decoded) ignored.push_back(path);
            if (read && r.not_decoded) listed_but_read.push_back(path);
        }
        EXPECT_TRUE(ignored.empty()) << kind << ": the CRD has fields the decoder (src/core/policy/policy_decode.cpp) "
                                     << "never reads; decode them or list them in NOT_DECODED of hack/crd-gen.py:"
                                     << list(ignored);
        EXPECT_TRUE(listed_but_read.empty())
            << kind << ": NOT_DECODED of hack/crd-gen.py lists fields the decoder reads:" << list(listed_but_read);
    }
}

TEST(ApiFields, EveryDefaultsFieldIsMergedAtItsScope) {
    for (auto kind : kDefaultsKinds) {
        const auto t = rows_of(kind);
        std::vector<std::string> dropped, listed_but_merged;
        for (const auto& [path, r] : t) {
            if (!r.leaf) continue;
            const bool used = merged(kind, t, r);
            if (!used && !r.not_merged) dropped.push_back(path);
            if (used && r.not_merged) listed_but_merged.push_back(path);
        }
        EXPECT_TRUE(dropped.empty()) << kind
                                     << ": fields that change no EffectivePolicy (src/core/policy/policy_merge.cpp); "
                                     << "merge them or list them in NOT_MERGED of hack/crd-gen.py:" << list(dropped);
        EXPECT_TRUE(listed_but_merged.empty())
            << kind << ": NOT_MERGED of hack/crd-gen.py lists fields the merge uses:" << list(listed_but_merged);
    }
}

// The two checks above can fail: a field no decoder knows is not decoded,
// and a policy-only source field on a defaults object is not merged.
TEST(ApiFields, ChecksTellAnUnreadFieldFromARead) {
    const auto policy = rows_of("AttunePolicy");
    Row unknown{"spec.cpu.notAField", false, true, {json::value("x"), json::value("y")}};
    EXPECT_FALSE(decoded("AttunePolicy", policy, unknown));
    EXPECT_TRUE(decoded("AttunePolicy", policy, policy.at("spec.cpu.overhead")));

    const auto defaults = rows_of("AttuneDefaults");
    EXPECT_FALSE(merged("AttuneDefaults", defaults, defaults.at("spec.metricsSource.vpa.name")));
    EXPECT_TRUE(merged("AttuneDefaults", defaults, defaults.at("spec.cpu.overhead")));
    EXPECT_TRUE(merged("AttuneDefaults", defaults, defaults.at("spec.updateStrategy.canary.percentage")));
}

}  // namespace
}  // namespace attune::core
