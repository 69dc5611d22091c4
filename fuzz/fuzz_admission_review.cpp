// libFuzzer target: an HTTP body as the webhook receives it, through the
// pure admission path: decode the AdmissionReview, size the pod at CREATE
// (a policy with a startup boost, RequestsOnly cpu and RequestsAndLimits
// memory, and a recommendation for "app"), or persist into a workload
// UPDATE, encode the answer. Nothing may crash, and every patch produced
// must apply to the object it was made for (RFC 6902 add/replace/escaping).
#include <attune/core/admission/admission_review.hpp>
#include <attune/core/admission/create_sizing.hpp>
#include <attune/core/admission/deferred_persistence.hpp>
#include <attune/core/util/json_patch.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {
using namespace attune::core;

const EffectivePolicy& policy() {
    static const EffectivePolicy p = [] {
        EffectivePolicy e;
        e.namespace_ = "fuzz";
        e.name = "p";
        e.update_strategy.initial_sizing = true;
        e.memory.controlled_values = ControlledValues::RequestsAndLimits;
        e.cpu.startup_boost = StartupBoost{1.5, std::chrono::seconds(60)};
        e.excluded_containers = {"istio-proxy"};
        return e;
    }();
    return p;
}

const StatusRecommendation& recommendation() {
    static const StatusRecommendation r = [] {
        StatusRecommendation s;
        s.workload = "w";
        s.kind = "Deployment";
        ContainerRecommendation c;
        c.name = "app";
        c.recommended.cpu_request = Quantity::parse("250m").value();
        c.recommended.memory_request = Quantity::parse("192Mi").value();
        c.recommended.memory_limit = Quantity::parse("384Mi").value();
        c.confidence = 0.9;
        s.recommendation.containers.push_back(c);
        return s;
    }();
    return r;
}

void check_patch(const boost::json::value& object, const boost::json::array& patch) {
    if (patch.empty()) return;
    if (!apply_json_patch(object, patch).ok()) __builtin_trap();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view body(reinterpret_cast<const char*>(data), size);
    auto req = decode_admission_review(body);
    if (!req) return 0;
    AdmissionResponse resp;
    resp.uid = req.value().uid;
    if (req.value().object.is_object()) {
        CreateSizingInput in;
        in.pod = &req.value().object;
        in.policy = &policy();
        in.recommendation = &recommendation();
        in.pod_level_resources_field = size % 2 == 0;
        in.now = "2026-12-01T10:00:00Z";
        auto sizing = size_pod_on_create(in);
        check_patch(req.value().object, sizing.patch);
        resp.patch = std::move(sizing.patch);
        resp.warnings = std::move(sizing.warnings);
        if (req.value().old_object.is_object()) {
            PersistenceCandidate cand;
            cand.policy = "p";
            cand.validated_revision = "rev-0000000000000001";
            cand.containers["app"].requests["cpu"] = Quantity::parse("200m").value();
            TemplateUpdateInput u;
            u.object = &req.value().object;
            u.old_object = &req.value().old_object;
            u.candidate = &cand;
            u.pod_level_resources_field = true;
            auto persisted = persist_on_template_change(u);
            check_patch(req.value().object, persisted.patch);
        }
    }
    (void)encode_admission_review(resp);
    return 0;
}
