// doctor's CRDs and manager rows over fixture objects.
#include "doctor_install.hpp"

#include <boost/json.hpp>

#include <gtest/gtest.h>

namespace attune::cli {
namespace {
namespace json = boost::json;

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A CRD serving v1alpha1 with the given schema properties ("status.recommendations").
json::value crd(std::string_view name, std::vector<std::string> props, bool established = true, bool storage = true) {
    json::object schema{{"type", "object"}, {"properties", json::object{}}};
    for (const auto& p : props) {
        json::object* at = &schema;
        std::string_view rest = p;
        while (!rest.empty()) {
            const auto dot = rest.find('.');
            const std::string key(rest.substr(0, dot));
            auto& props_obj = (*at)["properties"].is_object() ? (*at)["properties"].as_object()
                                                              : ((*at)["properties"] = json::object{}).as_object();
            if (!props_obj.contains(key)) props_obj[key] = json::object{{"type", "object"}};
            at = &props_obj[key].as_object();
            rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
        }
    }
    return json::object{
        {"metadata", json::object{{"name", name}}},
        {"spec", json::object{{"versions", json::array{json::object{{"name", "v1alpha1"},
                                                                    {"served", true},
                                                                    {"storage", storage},
                                                                    {"schema", json::object{{"openAPIV3Schema", schema}}}}}}}},
        {"status", json::object{{"conditions", json::array{json::object{{"type", "Established"},
                                                                        {"status", established ? "True" : "False"}}}}}}};
}

std::vector<CrdLookup> all_current() {
    std::vector<CrdLookup> out;
    for (const auto& k : known_crds()) {
        std::vector<std::string> props(k.properties.begin(), k.properties.end());
        out.push_back({std::string(k.name), ObjectLookup::of(crd(k.name, props))});
    }
    return out;
}

TEST(DoctorCrdsRow, AllCurrent) {
    const auto r = crds_row(all_current());
    EXPECT_EQ(r.status, DoctorStatus::Ok) << r.detail;
    EXPECT_TRUE(r.required);
    EXPECT_TRUE(has(r.detail, "attunepolicies, attunedefaults, attunenamespacedefaults at v1alpha1")) << r.detail;
}

TEST(DoctorCrdsRow, MissingIsARequiredFail) {
    auto crds = all_current();
    crds[0].lookup = ObjectLookup::failed(404, "404 NotFound");
    const auto r = crds_row(crds);
    EXPECT_EQ(r.status, DoctorStatus::Fail);
    EXPECT_TRUE(has(r.detail, "missing: attunepolicies.attune.io")) << r.detail;
    EXPECT_TRUE(has(r.detail, "kubectl apply -k deploy/kustomize/base")) << r.detail;
}

TEST(DoctorCrdsRow, OlderSchemaNotEstablishedWrongVersionForbidden) {
    auto older = all_current();
    older[0].lookup = ObjectLookup::of(crd("attunepolicies.attune.io", {"spec.targetRef", "status.conditions"}));
    const auto o = crds_row(older);
    EXPECT_EQ(o.status, DoctorStatus::Warn);
    EXPECT_TRUE(has(o.detail, "attunepolicies lacks spec.updateStrategy")) << o.detail;
    EXPECT_TRUE(has(o.detail, "status.idleWorkloads")) << o.detail;

    auto pending = all_current();
    pending[1].lookup =
        ObjectLookup::of(crd("attunedefaults.attune.io", {"spec.metricsSource", "spec.updateStrategy"}, false));
    EXPECT_EQ(crds_row(pending).status, DoctorStatus::Fail);
    EXPECT_TRUE(has(crds_row(pending).detail, "not Established"));

    auto not_storage = all_current();
    not_storage[2].lookup = ObjectLookup::of(
        crd("attunenamespacedefaults.attune.io", {"spec.metricsSource", "spec.updateStrategy"}, true, false));
    EXPECT_EQ(crds_row(not_storage).status, DoctorStatus::Fail);

    auto hidden = all_current();
    hidden[0].lookup = ObjectLookup::failed(403, "403 Forbidden");
    const auto h = crds_row(hidden);
    EXPECT_EQ(h.status, DoctorStatus::Warn);
    EXPECT_TRUE(has(h.detail, "forbidden")) << h.detail;
}

json::value deployment(int want, int ready, std::string image = "attune/attune-manager:v0.1.0") {
    json::array containers{json::object{{"name", "manager"}, {"image", image}}};
    json::object pod_spec{{"containers", containers}};
    json::object spec{{"replicas", want}, {"template", json::object{{"spec", pod_spec}}}};
    return json::object{{"metadata", json::object{{"name", "attune-manager"}}},
                        {"spec", spec},
                        {"status", json::object{{"readyReplicas", ready}}}};
}

json::value lease(std::string holder, std::string renew, int duration = 15) {
    return json::object{{"spec", json::object{{"holderIdentity", holder},
                                              {"renewTime", renew},
                                              {"leaseDurationSeconds", duration}}}};
}

const core::Timestamp kNow = core::parse_timestamp("2026-12-01T10:00:20Z").value();

ManagerFacts facts(ObjectLookup d, ObjectLookup l) {
    ManagerFacts m;
    m.ns = "attune-system";
    m.name = "attune-manager";
    m.deployment = std::move(d);
    m.lease = std::move(l);
    return m;
}

TEST(DoctorManagerRow, Table) {
    const auto nf = ObjectLookup::failed(404, "404");
    const auto fb = ObjectLookup::failed(403, "403");
    struct Case {
        const char* name;
        ManagerFacts m;
        DoctorStatus status;
        std::vector<std::string> in_detail;
    } cases[] = {
        {"ready and leading",
         facts(ObjectLookup::of(deployment(2, 2)),
               ObjectLookup::of(lease("attune-manager-7d9-x", "2026-12-01T10:00:18.123456Z"))),
         DoctorStatus::Ok,
         {"running", "2/2 ready", "version v0.1.0", "leader attune-manager-7d9-x (renewed 2s ago, lease 15s)"}},
        {"a local process holds the lease, no Deployment",
         facts(nf, ObjectLookup::of(lease("host_abc", "2026-12-01T10:00:15Z"))),
         DoctorStatus::Ok,
         {"running", "no Deployment attune-system/attune-manager (version unknown)", "leader host_abc"}},
        {"stale lease, no ready replica",
         facts(ObjectLookup::of(deployment(1, 0)), ObjectLookup::of(lease("gone", "2026-12-01T09:00:00Z"))),
         DoctorStatus::Fail,
         {"not running", "0/1 ready", "stale Lease: last leader gone"}},
        {"nothing installed", facts(nf, nf), DoctorStatus::Fail, {"not running", "no Deployment", "no Lease"}},
        {"cannot read", facts(fb, fb), DoctorStatus::Warn, {"could not tell", "forbidden"}},
        {"ready without leader election",
         facts(ObjectLookup::of(deployment(1, 1)), nf),
         DoctorStatus::Ok,
         {"1/1 ready", "no Lease attune-manager"}},
        {"released lease",
         facts(ObjectLookup::of(deployment(1, 0)), ObjectLookup::of(lease("", "2026-12-01T10:00:19Z"))),
         DoctorStatus::Fail,
         {"held by nobody"}},
    };
    for (const auto& c : cases) {
        const auto r = manager_row(c.m, kNow);
        EXPECT_EQ(r.status, c.status) << c.name << ": " << r.detail;
        EXPECT_TRUE(r.required);
        for (const auto& part : c.in_detail) EXPECT_TRUE(has(r.detail, part)) << c.name << ": " << r.detail;
    }
}

}  // namespace
}  // namespace attune::cli
