#include "doctor_report.hpp"

#include <gtest/gtest.h>

namespace attune::cli {
namespace {

DoctorRow row(std::string name, DoctorStatus s, bool required, std::string detail) {
    return make_row(std::move(name), required, s, std::move(detail));
}

TEST(DoctorTable, SeedFormat) {
    const std::vector<DoctorRow> rows = {
        row("Kubernetes version", DoctorStatus::Ok, true, "v1.36.3: supported"),
        row("cgroup v2", DoctorStatus::Warn, false, "could not determine"),
        row("CRDs", DoctorStatus::Fail, true, "missing: attunepolicies.attune.io"),
    };
    // %-22s %-4s [%s] %s
    EXPECT_EQ(render_doctor_table(rows, false),
              "Kubernetes version     ok   [required] v1.36.3: supported\n"
              "cgroup v2              WARN [optional] could not determine\n"
              "CRDs                   FAIL [required] missing: attunepolicies.attune.io\n");
}

TEST(DoctorTable, ColourPaintsOnlyTheStatusWord) {
    const std::vector<DoctorRow> rows = {row("manager", DoctorStatus::Ok, true, "running")};
    EXPECT_EQ(render_doctor_table(rows, true), "manager                \x1b[32mok\x1b[0m   [required] running\n");
}

TEST(DoctorFailed, OnlyARequiredFailCounts) {
    struct Case {
        const char* name;
        std::vector<DoctorRow> rows;
        bool failed;
    } cases[] = {
        {"all ok", {row("a", DoctorStatus::Ok, true, "")}, false},
        {"required WARN", {row("a", DoctorStatus::Warn, true, "")}, false},
        {"optional FAIL", {row("a", DoctorStatus::Fail, false, "")}, false},
        {"required FAIL", {row("a", DoctorStatus::Ok, false, ""), row("b", DoctorStatus::Fail, true, "")}, true},
        {"no rows", {}, false},
    };
    for (const auto& c : cases) EXPECT_EQ(doctor_failed(c.rows), c.failed) << c.name;
}

TEST(JoinNames, AllOrTheFirstFewAndACount) {
    const std::vector<std::string> names = {"a", "b", "c", "d"};
    EXPECT_EQ(join_names(names), "a, b, c, d");
    EXPECT_EQ(join_names(names, 2), "a, b and 2 more");
    EXPECT_EQ(join_names(names, 10, "; "), "a; b; c; d");
    EXPECT_EQ(join_names({}), "");
}

TEST(DoctorJson, RowsAndTheVerdict) {
    const std::vector<DoctorRow> rows = {row("CRDs", DoctorStatus::Fail, true, "missing")};
    const auto j = doctor_json(rows);
    EXPECT_TRUE(j.at("failed").as_bool());
    const auto& r = j.at("rows").as_array().at(0).as_object();
    EXPECT_EQ(r.at("name").as_string(), "CRDs");
    EXPECT_EQ(r.at("status").as_string(), "FAIL");
    EXPECT_TRUE(r.at("required").as_bool());
    EXPECT_EQ(r.at("detail").as_string(), "missing");
}

}  // namespace
}  // namespace attune::cli
