#include "doctor_cluster.hpp"

#include <algorithm>
#include <string>

namespace attune::cli {

namespace {

// Attune's stance per minor (verified 2026-09-14; docs/cli.md).
std::string stance(unsigned minor) {
    switch (minor) {
        case 32: return "supported (upstream EOL 2026-02-28; in-place resize is alpha: InPlacePodVerticalScaling=true on every component)";
        case 33: return "supported (upstream EOL 2026-06-28; memory-limit decreases stay clamped)";
        case 34: return "supported (upstream EOL 2026-10-27; pod-level resources exist, not resizable in place)";
        case 35: return "supported (in-place resize GA)";
        case 36: return "supported (first minor with pod-level in-place resize on by default)";
        case 37: return "supported (HPA scale-to-zero beta; experimental in Attune's nightly matrix)";
        default: return "";
    }
}

std::string version_text(const core::Capabilities& c) { return c.git_version.empty() ? "unknown" : c.git_version; }

DoctorRow pod_level_resize_row(const core::Capabilities& caps, const core::NodeListProbe& nodes) {
    const std::string fallback = version_text(caps) + (caps.at_least(1, 36) ? " >= 1.36" : " < 1.36");
    if (!nodes.error.empty()) {
        return make_row("pod-level resize", false, DoctorStatus::Warn,
                        std::string(caps.in_place_pod_level_resources ? "on" : "off") +
                            ": nodes could not be listed (" + (nodes.error_status == 403 ? "forbidden" : nodes.error) +
                            "), so the git version decides: " + fallback + " (fallback)");
    }
    std::size_t ready = 0, listing = 0, without = 0;
    std::vector<std::string> refused;  // Ready nodes whose pods cannot have spec.resources changed in place
    for (const auto& n : nodes.nodes) {
        if (!n.ready) continue;
        ++ready;
        if (!n.declared_features || n.declared_features->empty()) {
            // silent: counts toward neither side of the three-way rule
        } else if (std::find(n.declared_features->begin(), n.declared_features->end(),
                             core::kInPlacePodLevelResourcesFeature) != n.declared_features->end()) {
            ++listing;
        } else {
            ++without;
        }
        if (caps.in_place_pod_level_resources && !core::node_allows_pod_level_resize(caps, n))
            refused.push_back(n.name.empty() ? std::string("<unnamed>") : n.name);
    }
    const std::string of = " of " + std::to_string(ready) + " Ready node(s)";
    std::string detail;
    if (listing > 0) {
        detail = "on: " + std::to_string(listing) + of + " declare " + std::string(core::kInPlacePodLevelResourcesFeature) +
                 " (status.declaredFeatures)";
    } else if (without > 0) {
        detail = "off: " + std::to_string(without) + of + " declare features without " +
                 std::string(core::kInPlacePodLevelResourcesFeature) + " (the gate is off)";
    } else {
        detail = std::string(caps.in_place_pod_level_resources ? "on" : "off") + ": no Ready node declares features" +
                 (ready == 0 ? " (no Ready nodes)" : "") + ", so the git version decides: " + fallback + " (fallback)";
    }
    if (!refused.empty()) {
        detail += "; but not on " + join_names(refused, 5) +
                  " (they declare no InPlacePodLevelResourcesVerticalScaling: spec.resources of their pods is not "
                  "changed in place)";
        return make_row("pod-level resize", false, DoctorStatus::Warn, detail);
    }
    return make_row("pod-level resize", false, DoctorStatus::Ok, detail);
}

}  // namespace

DoctorRow kubernetes_version_row(const core::ServerVersionProbe& v) {
    if (!v.error.empty())
        return make_row("Kubernetes version", true, DoctorStatus::Fail, "cannot read /version: " + v.error);
    const auto mm = core::parse_git_version(v.git_version);
    if (!mm)
        return make_row("Kubernetes version", true, DoctorStatus::Fail,
                        "cannot parse gitVersion \"" + v.git_version + "\"");
    const auto [major, minor] = *mm;
    if (major == 1 && minor < 32)
        return make_row("Kubernetes version", true, DoctorStatus::Fail,
                        v.git_version + ": Attune needs 1.32 or newer (in-place resize through pods/resize)");
    if (major > 1 || minor > 37)
        return make_row("Kubernetes version", true, DoctorStatus::Warn,
                        v.git_version + ": newer than Attune has tested (1.32 to 1.37)");
    return make_row("Kubernetes version", true, DoctorStatus::Ok, v.git_version + ": " + stance(minor));
}

DoctorRow pods_resize_row(const core::ApiResourcesProbe& r, const core::ServerVersionProbe& v) {
    if (!r.error.empty()) return make_row("pods/resize", true, DoctorStatus::Fail, "cannot read /api/v1: " + r.error);
    const bool listed = std::find(r.core_v1_resources.begin(), r.core_v1_resources.end(), "pods/resize") !=
                        r.core_v1_resources.end();
    const auto mm = core::parse_git_version(v.git_version);
    const bool is_132 = mm && mm->first == 1 && mm->second == 32;
    if (!listed)
        return make_row("pods/resize", true, DoctorStatus::Fail,
                        std::string("not advertised on v1: Attune resizes only through pods/resize") +
                            (is_132 ? " (1.32: set InPlacePodVerticalScaling=true on every component)" : ""));
    return make_row("pods/resize", true, DoctorStatus::Ok,
                    std::string("advertised on v1") +
                        (is_132 ? " (1.32: the InPlacePodVerticalScaling gate must be on for the kubelets too)" : ""));
}

std::vector<DoctorRow> capability_rows(const core::Capabilities& caps, const core::OpenApiProbe& openapi,
                                       const core::NodeListProbe& nodes) {
    std::vector<DoctorRow> out;
    if (caps.at_least(1, 33)) {
        std::string field;
        if (!openapi.error.empty()) {
            field = std::string(caps.pod_level_resources_field ? "on" : "off") + ": OpenAPI unavailable (" +
                    openapi.error + "), so the git version decides: " + version_text(caps) +
                    (caps.at_least(1, 34) ? " >= 1.34" : " < 1.34") + " (fallback)";
        } else {
            field = caps.pod_level_resources_field
                        ? "on: the apiserver's PodSpec has resources (OpenAPI); pods may carry a pod-level envelope"
                        : "off: the apiserver's PodSpec has no resources (OpenAPI)";
            if (caps.pod_level_resources_field && !caps.at_least(1, 34))
                field += " (1.33: PodLevelResources is alpha, off by default, and the apiserver then drops it)";
        }
        out.push_back(make_row("pod-level resources", false,
                               openapi.error.empty() ? DoctorStatus::Ok : DoctorStatus::Warn, field));
        out.push_back(pod_level_resize_row(caps, nodes));
    }
    out.push_back(
        make_row("memory limit decrease", false, DoctorStatus::Ok,
                 caps.allow_in_place_memory_limit_decrease
                     ? "in place: " + version_text(caps) + " >= 1.34 allows a NotRequired memory-limit decrease"
                     : "clamped: before 1.34 Attune never lowers a memory limit in place (1.33's validation "
                       "rejects it)"));
    std::string hpa;
    if (caps.hpa_scale_to_zero)
        hpa = openapi.error.empty() && !caps.at_least(1, 37)
                  ? "on: the apiserver's HPA condition types list ScaledToZero (OpenAPI)"
                  : "on: " + version_text(caps) + " >= 1.37 (HPAScaleToZero beta)";
    else
        hpa = "off: " + version_text(caps) +
              " < 1.37 and OpenAPI lists no ScaledToZero condition; an HPA-held zero is still told apart by its "
              "condition";
    out.push_back(make_row("HPA scale-to-zero", false, DoctorStatus::Ok, hpa));
    out.push_back(
        make_row("sidecar resize", false, DoctorStatus::Ok,
                 caps.in_place_sidecar_resize
                     ? "in place: native sidecars (restartPolicy Always) are resized like app containers (1.33+)"
                     : "off: 1.32 accepts a sidecar's /resize and silently drops it, so Attune resizes app "
                       "containers only"));
    return out;
}

}  // namespace attune::cli
