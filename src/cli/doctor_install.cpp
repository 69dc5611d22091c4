#include "doctor_install.hpp"

#include "manager_version.hpp"
#include "object_fields.hpp"

#include <attune/core/model/lease_record.hpp>
#include <attune/core/util/json_path.hpp>

#include <boost/json.hpp>

namespace attune::cli {

namespace {

std::string short_name(std::string_view crd) { return std::string(crd.substr(0, crd.find('.'))); }

// The schema of `version`, or nullptr; `storage` tells whether it is the storage version.
const boost::json::value* served_schema(const boost::json::value& crd, std::string_view version, bool& storage) {
    if (const auto* versions = core::array_at(crd, {"spec", "versions"}))
        for (const auto& v : *versions) {
            if (core::string_at(v, {"name"}) != version || !core::bool_at(v, {"served"}).value_or(false)) continue;
            storage = core::bool_at(v, {"storage"}).value_or(false);
            return core::json_at(v, {"schema", "openAPIV3Schema"});
        }
    return nullptr;
}

// "status.recommendations" inside an OpenAPI schema (properties all the way down).
bool has_property(const boost::json::value& schema, std::string_view dotted) {
    const boost::json::value* at = &schema;
    while (!dotted.empty()) {
        const auto dot = dotted.find('.');
        const auto key = dotted.substr(0, dot);
        at = core::json_at(*at, {"properties", key});
        if (at == nullptr) return false;
        dotted = dot == std::string_view::npos ? std::string_view() : dotted.substr(dot + 1);
    }
    return true;
}

}  // namespace

std::span<const KnownCrd> known_crds() {
    static const std::vector<KnownCrd> kCrds = {
        {"attunepolicies.attune.io",
         {"spec.targetRef", "spec.updateStrategy", "status.conditions", "status.workloads", "status.recommendations",
          "status.resizeHistory", "status.idleWorkloads"}},
        {"attunedefaults.attune.io", {"spec.metricsSource", "spec.updateStrategy"}},
        {"attunenamespacedefaults.attune.io", {"spec.metricsSource", "spec.updateStrategy"}},
    };
    return kCrds;
}

DoctorRow crds_row(std::span<const CrdLookup> crds) {
    std::vector<std::string> missing, broken, older, unreadable, fine;
    for (const auto& c : crds) {
        const auto& l = c.lookup;
        if (l.not_found()) {
            missing.push_back(c.name);
            continue;
        }
        if (!l.found()) {
            unreadable.push_back(short_name(c.name) + " (" + (l.forbidden() ? "forbidden" : l.error) + ")");
            continue;
        }
        bool storage = false;
        const auto* schema = served_schema(*l.object, kAttuneVersion, storage);
        if (schema == nullptr || !storage) {
            broken.push_back(short_name(c.name) + " does not serve " + std::string(kAttuneVersion) + " as its storage version");
            continue;
        }
        if (!condition_true(*l.object, "Established")) {
            broken.push_back(short_name(c.name) + " is not Established");
            continue;
        }
        std::vector<std::string> lacking;
        for (const auto& k : known_crds())
            if (k.name == c.name)
                for (auto p : k.properties)
                    if (!has_property(*schema, p)) lacking.emplace_back(p);
        if (!lacking.empty())
            older.push_back(short_name(c.name) + " lacks " + join_names(lacking));
        else
            fine.push_back(short_name(c.name));
    }
    if (!missing.empty())
        return make_row("CRDs", true, DoctorStatus::Fail,
                        "missing: " + join_names(missing) + " (install them: kubectl apply -k deploy/kustomize/base)");
    if (!broken.empty()) return make_row("CRDs", true, DoctorStatus::Fail, join_names(broken, SIZE_MAX, "; "));
    if (!unreadable.empty())
        return make_row("CRDs", true, DoctorStatus::Warn,
                        "cannot read " + join_names(unreadable) + "; doctor needs customresourcedefinitions get");
    if (!older.empty())
        return make_row("CRDs", true, DoctorStatus::Warn,
                        "older than this plugin: " + join_names(older, SIZE_MAX, "; ") +
                            " (re-apply the CRDs of this release)");
    return make_row("CRDs", true, DoctorStatus::Ok,
                    join_names(fine) + " at " + std::string(kAttuneVersion) + ", Established");
}

DoctorRow manager_row(const ManagerFacts& m, core::Timestamp now) {
    const std::string where = m.ns + "/" + m.name;
    std::vector<std::string> parts;
    bool running = false;
    bool unreadable = false;

    if (m.deployment.found()) {
        const auto& d = *m.deployment.object;
        const auto want = core::int_at(d, {"spec", "replicas"}).value_or(1);
        const auto ready = core::int_at(d, {"status", "readyReplicas"}).value_or(0);
        running = running || ready > 0;
        const auto v = manager_version_from(d);
        parts.push_back("Deployment " + where + " " + std::to_string(ready) + "/" + std::to_string(want) + " ready");
        parts.push_back(v.version.empty() ? "version unknown (" + v.error + ")" : "version " + v.version);
    } else if (m.deployment.not_found()) {
        parts.push_back("no Deployment " + where + " (version unknown)");
    } else {
        unreadable = true;
        parts.push_back("cannot read Deployment " + where + " (" + (m.deployment.forbidden() ? "forbidden" : m.deployment.error) + ")");
    }

    if (m.lease.found()) {
        const auto l = core::read_lease_record(*m.lease.object, now);
        if (l.holder.empty() || !l.renewed) {
            parts.push_back("Lease " + m.name + " is held by nobody");
        } else {
            running = running || l.fresh;
            parts.push_back((l.fresh ? "leader " : "stale Lease: last leader ") + l.holder + " (renewed " +
                            std::to_string(l.age_seconds) + "s ago, lease " + std::to_string(l.duration_seconds) +
                            "s)");
        }
    } else if (m.lease.not_found()) {
        parts.push_back("no Lease " + m.name + " (leader election off?)");
    } else {
        unreadable = true;
        parts.push_back("cannot read Lease " + m.name + " (" + (m.lease.forbidden() ? "forbidden" : m.lease.error) + ")");
    }

    const std::string detail = join_names(parts, SIZE_MAX, "; ");
    if (running) return make_row("manager", true, DoctorStatus::Ok, "running: " + detail);
    if (unreadable) return make_row("manager", true, DoctorStatus::Warn, "could not tell: " + detail);
    return make_row("manager", true, DoctorStatus::Fail, "not running: " + detail);
}

}  // namespace attune::cli
