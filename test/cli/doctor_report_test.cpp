#include "doctor_report.hpp"

#include <gtest/gtest.h>

namespace attune::cli {
namespace {

doctor_row row(std::string name, doctor_status s, bool required, std::string detail) {
    return make_row(std::move(name), required, s, std::move(detail));
}

TEST(DoctorTable, SeedFormat) {
    const std::vector<doctor_row> rows = {
        row("Kubernetes version", doctor_status::ok, true, "v1.36.3: supported"),
        row("cgroup v2", doctor_status::warn, false, "could not determine"),
        row("CRDs", doctor_status::fail, true, "missing: attunepolicies.attune.io"),
    };
    // %-22s %-4s [%s] %s
    EXPECT_EQ(render_doctor_table(rows, false),
              "Kubernetes version     ok   [required] v1.36.3: supported\n"
              "cgroup v2              WARN [optional] could not determine\n"
              "CRDs                   FAIL [required] missing: attunepolicies.attune.io\n");
}

TEST(DoctorTable, ColourPaintsOnlyTheStatusWord) {
    const std::vector<doctor_row> rows = {row("manager", doctor_status::ok, true, "running")};
    EXPECT_EQ(render_doctor_table(rows, true), "manager                \x1b[32mok\x1b[0m   [required] running\n");
}

TEST(DoctorFailed, OnlyARequiredFailCounts) {
    struct Case {
        const char* name;
        std::vector<doctor_row> rows;
        bool failed;
    } cases[] = {
        {"all ok", {row("a", doctor_status::ok, true, "")}, false},
        {"required WARN", {row("a", doctor_status::warn, true, "")}, false},
        {"optional FAIL", {row("a", doctor_status::fail, false, "")}, false},
        {"required FAIL", {row("a", doctor_status::ok, false, ""), row("b", doctor_status::fail, true, "")}, true},
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
    const std::vector<doctor_row> rows = {row("CRDs", doctor_status::fail, true, "missing")};
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
