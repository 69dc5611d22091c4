// doctor's cgroup v2 row (docs/cli.md), case by case: no nodes,
// forbidden, kernel 5.4 (suspect v1), kernel 6.8 (unknown), the NFD label
// never flips it to ok, 1.35 vs 1.37 detail text, and doctorFailed false for
// every cgroup WARN (the row is optional).
#include "doctor_cgroup.hpp"

#include <gtest/gtest.h>

namespace attune::cli {
namespace {

core::NodeProbe node(std::string name, std::string kernel, bool nfd = false, bool ready = true) {
    core::NodeProbe n;
    n.ready = ready;
    n.name = std::move(name);
    n.kernel_version = std::move(kernel);
    n.kernel_config_cgroup_v2 = nfd;
    return n;
}

core::NodeListProbe listed(std::vector<core::NodeProbe> nodes) {
    core::NodeListProbe p;
    p.nodes = std::move(nodes);
    return p;
}

core::NodeListProbe forbidden() {
    core::NodeListProbe p;
    p.error = R"(403 Forbidden: nodes is forbidden: User "system:serviceaccount:t:u" cannot list resource "nodes")";
    p.error_status = 403;
    return p;
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

struct Case {
    const char* name;
    core::NodeListProbe nodes;
    unsigned minor;
    std::vector<std::string> in_detail;
    std::vector<std::string> not_in_detail;
};

TEST(DoctorCgroupRow, EachNodeAndKernelCase) {
    const Case cases[] = {
        {"no nodes", listed({}), 36, {"could not determine", "no Ready nodes", "stat -fc %T /sys/fs/cgroup"}, {"suspect"}},
        {"only NotReady nodes", listed({node("n1", "5.4.0", false, false)}), 36, {"no Ready nodes"}, {"suspect"}},
        {"forbidden", forbidden(), 36, {"could not determine", "cannot list nodes", "forbidden"}, {"suspect"}},
        {"kernel 5.4", listed({node("old", "5.4.0-150-generic"), node("new", "6.8.0-1012-aws")}), 34,
         {"suspect cgroup v1 on old (kernel 5.4.0-150-generic)", "the other 1 Ready node(s) could not be determined"},
         {"new (kernel"}},
        {"kernel 6.8", listed({node("n1", "6.8.0-1012-aws")}), 34,
         {"could not determine (no Node field reports runtime cgroup version"}, {"suspect", "failCgroupV1"}},
        {"kernel 5.8 exactly is not suspect", listed({node("n1", "5.8.0")}), 34, {"could not determine"}, {"suspect"}},
        {"unknown kernel", listed({node("n1", "")}), 34, {"could not determine"}, {"suspect"}},
        {"NFD label is a footnote", listed({node("n1", "6.8.0", true)}), 36,
         {"could not determine", "Footnote: 1 of 1 Ready node(s) carry NFD's kernel.config.CGROUP_V2=true",
          "not proof it booted with v2"},
         {}},
        {"1.35 failCgroupV1 note", listed({node("n1", "6.8.0")}), 35, {"Since 1.35 kubelet failCgroupV1 defaults true"},
         {"On 1.37+"}},
        {"1.37 failCgroupV1 note", listed({node("n1", "6.8.0")}), 37,
         {"On 1.37+ kubelet failCgroupV1 defaults true", "does not start unless failCgroupV1=false"}, {"Since 1.35"}},
        {"1.34 has no failCgroupV1 note", listed({node("n1", "6.8.0")}), 34, {}, {"failCgroupV1"}},
        {"forbidden on 1.37 keeps the note", forbidden(), 37, {"On 1.37+ kubelet failCgroupV1"}, {}},
        {"no Ready nodes on 1.37: no note", listed({}), 37, {}, {"failCgroupV1"}},
    };
    for (const auto& c : cases) {
        const auto row = cgroup_row(c.nodes, 1, c.minor);
        EXPECT_EQ(row.name, "cgroup v2") << c.name;
        // Never ok (a heuristic proves nothing) and never FAIL on a heuristic.
        EXPECT_EQ(row.status, DoctorStatus::Warn) << c.name;
        EXPECT_FALSE(row.required) << c.name;
        for (const auto& part : c.in_detail) EXPECT_TRUE(has(row.detail, part)) << c.name << ": " << row.detail;
        for (const auto& part : c.not_in_detail) EXPECT_FALSE(has(row.detail, part)) << c.name << ": " << row.detail;
        // doctorFailed is false for every cgroup WARN, even beside an ok required row.
        DoctorRow required_ok;
        required_ok.name = "pods/resize";
        required_ok.required = true;
        const std::vector<DoctorRow> rows = {required_ok, row};
        EXPECT_FALSE(doctor_failed(rows)) << c.name;
    }
}

TEST(DoctorCgroupRow, The1_35And1_37DetailsDiffer) {
    const auto n = listed({node("n1", "6.8.0")});
    EXPECT_NE(cgroup_row(n, 1, 35).detail, cgroup_row(n, 1, 37).detail);
}

TEST(DoctorCgroupRow, ManySuspectNodesAreSummarised) {
    std::vector<core::NodeProbe> nodes;
    for (int i = 0; i < 8; ++i) nodes.push_back(node("n" + std::to_string(i), "4.19.0"));
    const auto row = cgroup_row(listed(nodes), 1, 33);
    EXPECT_TRUE(has(row.detail, "and 3 more")) << row.detail;
    EXPECT_EQ(row.status, DoctorStatus::Warn);
}

}  // namespace
}  // namespace attune::cli
