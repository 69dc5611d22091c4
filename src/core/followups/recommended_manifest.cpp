#include "attune/core/followups/recommended_manifest.hpp"

#include "attune/core/followups/template_persistence.hpp"
#include "attune/core/recommend/workload_baseline.hpp"
#include "attune/core/resize/resize_targets.hpp"

#include <boost/json.hpp>

#include <cctype>

namespace attune::core {
namespace json = boost::json;

namespace {

// Where each kind keeps its pod template (decode_pod_template reads the same).
std::vector<std::string_view> template_path(std::string_view kind) {
    if (kind == "CronJob") return {"spec", "jobTemplate", "spec", "template"};
    return {"spec", "template"};
}

json::object* object_at_path(json::value& root, const std::vector<std::string_view>& path) {
    json::value* v = &root;
    for (auto key : path) {
        auto* o = v->if_object();
        if (!o) return nullptr;
        v = o->if_contains(key);
        if (!v) return nullptr;
    }
    return v->if_object();
}

// One list (requests or limits) rewritten in place: a value equal to the
// new one keeps its spelling ("1" stays "1", not "1000m"), a changed or new
// one takes the canonical form.
void write_list(json::object& resources, std::string_view key, const ResourceList& next) {
    if (next.empty()) return;
    auto& slot = resources[key];
    if (!slot.is_object()) slot = json::object{};
    auto& list = slot.as_object();
    for (const auto& [name, q] : next) {
        if (const auto* old = list.if_contains(name); old && old->is_string()) {
            const auto parsed = Quantity::parse(old->get_string());
            if (parsed && parsed.value() == q) continue;
        }
        list[name] = q.to_string();
    }
}

void write_requirements(json::object& holder, const ResourceRequirements& next) {
    auto& slot = holder["resources"];
    if (!slot.is_object()) slot = json::object{};
    write_list(slot.as_object(), "requests", next.requests);
    write_list(slot.as_object(), "limits", next.limits);
}

}  // namespace

json::value clean_manifest(const json::value& object) {
    json::value out = object;
    auto* o = out.if_object();
    if (!o) return out;
    o->erase("status");
    if (auto* md = o->if_contains("metadata"); md && md->is_object()) {
        auto& m = md->as_object();
        for (auto key : {"managedFields", "resourceVersion", "uid", "creationTimestamp", "generation", "selfLink"})
            m.erase(key);
        if (auto* ann = m.if_contains("annotations"); ann && ann->is_object()) {
            ann->as_object().erase("kubectl.kubernetes.io/last-applied-configuration");
            ann->as_object().erase("deployment.kubernetes.io/revision");
            if (ann->as_object().empty()) m.erase("annotations");
        }
    }
    return out;
}

Result<RecommendedManifest> recommended_manifest(const json::value& workload,
                                                       const StatusRecommendation& rec,
                                                       const EffectivePolicy& policy) {
    auto tmpl = decode_pod_template(rec.kind, workload);
    if (!tmpl) return tmpl.error();
    RecommendedManifest out;
    out.live = clean_manifest(workload);
    out.recommended = out.live;

    const auto targets = resize_targets(rec.recommendation, policy);
    TemplatePersistInputs in;
    in.kind = rec.kind;
    in.controlled_values = targets.controlled_values;
    for (const auto& t : targets.targets) in.resources.emplace(t.name, t.resources);
    if (in.resources.empty()) return out;
    const auto decision = template_patch(tmpl.value(), in);
    if (const auto* skip = std::get_if<TemplateSkip>(&decision)) {
        if (skip->reason == "unchanged") return out;
        return make_error(skip->reason, skip->message);
    }
    const auto& patch = std::get<TemplatePatch>(decision);

    json::object* pod_template = object_at_path(out.recommended, template_path(rec.kind));
    json::object* spec =
        pod_template ? pod_template->if_contains("spec") ? pod_template->at("spec").if_object() : nullptr : nullptr;
    if (!spec) return make_error("invalid_workload", "the " + rec.kind + " has no pod template spec");
    for (auto list_key : {"containers", "initContainers"}) {
        auto* list = spec->if_contains(list_key);
        if (!list || !list->is_array()) continue;
        for (auto& c : list->as_array()) {
            auto* co = c.if_object();
            const auto* name_value = co ? co->if_contains("name") : nullptr;
            if (!name_value || !name_value->is_string()) continue;
            // A copy: writing "resources" may move the object's entries.
            const std::string name(name_value->get_string());
            const auto next = patch.containers.find(name);
            const Container* before = tmpl.value().find_container(name);
            if (next == patch.containers.end() || !before || before->resources == next->second) continue;
            write_requirements(*co, next->second);
            out.changed_containers.push_back(name);
        }
    }
    if (patch.envelope) {
        write_requirements(*spec, *patch.envelope);
        out.envelope_changed = true;
    }
    return out;
}

Result<std::vector<json::value>> apply_to_documents(std::vector<json::value> docs, std::string_view ns,
                                                   const StatusRecommendation& rec, const EffectivePolicy& policy) {
    for (auto& doc : docs) {
        const auto* o = doc.if_object();
        if (!o) continue;
        auto field = [&](std::initializer_list<std::string_view> path) -> std::string_view {
            const json::value* v = &doc;
            for (auto k : path) {
                const auto* obj = v->if_object();
                v = obj ? obj->if_contains(k) : nullptr;
                if (!v) return {};
            }
            return v->is_string() ? std::string_view(v->get_string()) : std::string_view{};
        };
        if (field({"kind"}) != rec.kind || field({"metadata", "name"}) != rec.workload) continue;
        if (const auto in = field({"metadata", "namespace"}); !in.empty() && in != ns) continue;
        auto m = recommended_manifest(doc, rec, policy);
        if (!m) return m.error();
        // recommended_manifest starts from clean_manifest; the file keeps whatever else it holds.
        if (m.value().changed()) {
            auto* tmpl = doc.as_object().if_contains("spec");
            auto* rec_spec = m.value().recommended.as_object().if_contains("spec");
            if (tmpl && rec_spec) *tmpl = *rec_spec;
        }
        return docs;
    }
    return make_error("workload_not_in_file", "no document is " + rec.kind + " " + std::string(ns) + "/" + rec.workload);
}

std::string manifest_file_name(std::string_view ns, std::string_view kind, std::string_view name, bool json) {
    std::string k(kind);
    for (auto& ch : k) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return std::string(ns) + "_" + k + "_" + std::string(name) + (json ? ".json" : ".yaml");
}

}  // namespace attune::core
