#include "attune/core/model/qos.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "golden.hpp"

namespace attune::core {
namespace {

Pod decode(std::string_view json) {
    auto r = decode_pod(boost::json::parse(json));
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? r.value() : Pod{};
}

struct QosCase {
    const char* name;
    const char* pod;
    QosClass gate_on;
    QosClass gate_off;
};

TEST(Qos, TableCases) {
    const QosCase cases[] = {
        {"no resources is BestEffort", R"({"spec":{"containers":[{"name":"a"}]}})", QosClass::BestEffort,
         QosClass::BestEffort},
        {"zero quantity is unset", R"({"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"0"}}}]}})",
         QosClass::BestEffort, QosClass::BestEffort},
        {"requests == limits on cpu and memory is Guaranteed",
         R"({"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"1000m","memory":"1024Mi"}}}]}})",
         QosClass::Guaranteed, QosClass::Guaranteed},
        {"a sidecar without limits makes the pod Burstable",
         R"({"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"1","memory":"1Gi"}}}],
             "initContainers":[{"name":"s","restartPolicy":"Always","resources":{"requests":{"cpu":"100m"}}}]}})",
         QosClass::Burstable, QosClass::Burstable},
        {"Guaranteed envelope decides when the gate is on (KEP-2837)",
         R"({"spec":{"resources":{"requests":{"cpu":"2","memory":"2Gi"},"limits":{"cpu":"2","memory":"2Gi"}},
             "containers":[{"name":"a","resources":{"requests":{"cpu":"1"}}}]}})",
         QosClass::Guaranteed, QosClass::Burstable},
        {"empty envelope object is still pod-level: BestEffort",
         R"({"spec":{"resources":{},"containers":[{"name":"a","resources":{"requests":{"cpu":"1"}}}]}})",
         QosClass::BestEffort, QosClass::Burstable},
        {"limits only is Burstable (no defaulting here)",
         R"({"spec":{"containers":[{"name":"a","resources":{"limits":{"cpu":"1","memory":"1Gi"}}}]}})",
         QosClass::Burstable, QosClass::Burstable},
    };
    for (const auto& c : cases) {
        const Pod p = decode(c.pod);
        EXPECT_EQ(compute_pod_qos(p, true), c.gate_on) << c.name;
        EXPECT_EQ(compute_pod_qos(p, false), c.gate_off) << c.name;
    }
}

TEST(Qos, StatusQosClassWinsOverComputation) {
    Pod p = decode(R"({"spec":{"containers":[{"name":"a"}]},"status":{"qosClass":"Guaranteed"}})");
    EXPECT_EQ(pod_qos(p, true), QosClass::Guaranteed);
    p.qos_class.clear();
    EXPECT_EQ(pod_qos(p, true), QosClass::BestEffort);
}

// test/data/qos_vectors.json: upstream ComputePodQOS (kubernetes v1.36.3)
// over generated pods, PodLevelResources gate on and off.
TEST(QosGolden, ComputePodQosMatchesUpstreamGateOnAndOff) {
    const auto doc = testing::load_golden("qos_vectors.json");
    const auto& cases = doc.at("cases").as_array();
    ASSERT_GE(cases.size(), 3000u);
    std::size_t with_envelope = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto& c = cases[i].as_object();
        auto pod = decode_pod(c.at("pod"));
        ASSERT_TRUE(pod.ok()) << i << ": " << pod.error().message;
        EXPECT_EQ(qos_name(compute_pod_qos(pod.value(), true)), c.at("gate_on").as_string())
            << "case " << i << " " << boost::json::serialize(c.at("pod"));
        EXPECT_EQ(qos_name(compute_pod_qos(pod.value(), false)), c.at("gate_off").as_string())
            << "case " << i << " " << boost::json::serialize(c.at("pod"));
        with_envelope += c.at("has_pod_level").as_bool() ? 1 : 0;
    }
    EXPECT_GT(with_envelope, 1000u);
}

}  // namespace
}  // namespace attune::core
