#include "attune/core/recommendation_status.hpp"

#include <boost/json.hpp>

#include "json_decode.hpp"

namespace attune::core {
namespace json = boost::json;
using namespace detail;

namespace {

Quantity quantity_field(const json::object& o, std::string_view key, const std::string& path) {
    const auto* v = field(o, key);
    if (!v) return Quantity();
    const std::string at = path + "." + std::string(key);
    std::string text;
    if (v->is_string()) text = std::string(v->get_string());
    else if (v->is_int64()) text = std::to_string(v->get_int64());
    else if (v->is_uint64()) text = std::to_string(v->get_uint64());
    else fail(at, "expected a quantity string");
    auto q = Quantity::parse(text);
    if (!q.ok()) fail(at, q.error().message);
    return std::move(q).value();
}

RecommendedResources resources(const json::object& c, std::string_view key, const std::string& path) {
    RecommendedResources r;
    const auto* o = opt_object(c, key, path);
    if (!o) return r;
    const std::string at = path + "." + std::string(key);
    r.cpu_request = quantity_field(*o, "cpuRequest", at);
    r.cpu_limit = quantity_field(*o, "cpuLimit", at);
    r.memory_request = quantity_field(*o, "memoryRequest", at);
    r.memory_limit = quantity_field(*o, "memoryLimit", at);
    return r;
}

double number_field(const json::object& o, std::string_view key, const std::string& path) {
    const auto* v = field(o, key);
    if (!v) return 0;
    if (v->is_double()) return v->get_double();
    if (v->is_int64()) return static_cast<double>(v->get_int64());
    if (v->is_uint64()) return static_cast<double>(v->get_uint64());
    // The Go status marshals float64 as a number, but a hand-written status
    // may carry "0.8": accept a numeric string too.
    if (v->is_string()) {
        try {
            std::size_t used = 0;
            const std::string s(v->get_string());
            const double d = std::stod(s, &used);
            if (used == s.size()) return d;
        } catch (const std::exception&) {
        }
    }
    fail(path + "." + std::string(key), "expected a number");
}

json::object encode_resources(const RecommendedResources& r) {
    json::object o;
    o["cpuRequest"] = r.cpu_request.to_string();
    o["cpuLimit"] = r.cpu_limit.to_string();
    o["memoryRequest"] = r.memory_request.to_string();
    o["memoryLimit"] = r.memory_limit.to_string();
    return o;
}

}  // namespace

const ContainerRecommendation* WorkloadRecommendation::find(std::string_view container) const {
    for (const auto& c : containers)
        if (c.name == container) return &c;
    return nullptr;
}

result<std::vector<WorkloadRecommendation>> decode_recommendations(const json::value& policy_or_status) {
    try {
        const auto& root = as_object(policy_or_status, "AttunePolicy");
        const json::object* status = &root;
        std::string path = "status";
        if (root.contains("status") || root.contains("spec") || root.contains("metadata")) {
            status = opt_object(root, "status", "AttunePolicy");
        }
        std::vector<WorkloadRecommendation> out;
        if (!status) return out;
        const auto* arr = opt_array(*status, "recommendations", path);
        if (!arr) return out;
        out.reserve(arr->size());
        for (std::size_t i = 0; i < arr->size(); ++i) {
            const std::string at = path + ".recommendations[" + std::to_string(i) + "]";
            const auto& o = as_object((*arr)[i], at);
            WorkloadRecommendation w;
            w.workload = opt_string(o, "workload", at);
            w.kind = opt_string(o, "kind", at);
            if (w.workload.empty()) fail(at + ".workload", "missing");
            if (w.kind.empty()) fail(at + ".kind", "missing");
            w.last_data_time = opt_string(o, "lastDataTime", at);
            w.stale = opt_bool(o, "stale", at);
            if (const auto* cs = opt_array(o, "containers", at)) {
                for (std::size_t j = 0; j < cs->size(); ++j) {
                    const std::string cat = at + ".containers[" + std::to_string(j) + "]";
                    const auto& co = as_object((*cs)[j], cat);
                    ContainerRecommendation c;
                    c.name = opt_string(co, "name", cat);
                    if (c.name.empty()) fail(cat + ".name", "missing");
                    c.current = resources(co, "current", cat);
                    c.recommended = resources(co, "recommended", cat);
                    c.confidence = number_field(co, "confidence", cat);
                    if (const auto dp = opt_int(co, "dataPoints", cat)) c.data_points = static_cast<std::int32_t>(*dp);
                    c.last_updated = opt_string(co, "lastUpdated", cat);
                    if (const auto* e = field(co, "explanation")) c.explanation = *e;
                    w.containers.push_back(std::move(c));
                }
            }
            out.push_back(std::move(w));
        }
        return out;
    } catch (const decode_failure& e) {
        return make_error("invalid_recommendations", e.what());
    }
}

json::value encode_recommendation(const WorkloadRecommendation& rec) {
    json::object o;
    o["workload"] = rec.workload;
    o["kind"] = rec.kind;
    json::array cs;
    for (const auto& c : rec.containers) {
        json::object co;
        co["name"] = c.name;
        co["current"] = encode_resources(c.current);
        co["recommended"] = encode_resources(c.recommended);
        co["confidence"] = c.confidence;
        co["dataPoints"] = c.data_points;
        co["lastUpdated"] = c.last_updated;
        if (c.explanation) co["explanation"] = *c.explanation;
        cs.push_back(std::move(co));
    }
    o["containers"] = std::move(cs);
    if (!rec.last_data_time.empty()) o["lastDataTime"] = rec.last_data_time;
    o["stale"] = rec.stale;
    return o;
}

const WorkloadRecommendation* find_recommendation(const std::vector<WorkloadRecommendation>& recs,
                                                  std::string_view kind, std::string_view workload) {
    for (const auto& r : recs)
        if (r.kind == kind && r.workload == workload) return &r;
    return nullptr;
}

}  // namespace attune::core
