#include "output.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace attune::cli {
namespace {

const boost::json::array kRecords = boost::json::parse(R"([
  {"name": "web", "ns": "b", "replicas": 10, "status": {"phase": "Running"}},
  {"name": "api", "ns": "a", "replicas": 9, "status": {"phase": "Pending"}, "extra": ["x", "y"]},
  {"name": "db",  "ns": "a", "replicas": 100}
])").as_array();

const std::vector<Column> kColumns = {{"Name", "name"},
                                      {"Phase", "status.phase"},
                                      {"Replicas", "replicas"},
                                      {"Extra", "extra", true}};

TEST(RenderTable, KubectlLayoutWithNoneForMissingFields) {
    auto t = render_table(kRecords, kColumns, {});
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t.value(),
              "NAME   PHASE     REPLICAS\n"
              "web    Running   10\n"
              "api    Pending   9\n"
              "db     <none>    100\n");
}

TEST(RenderTable, WideAddsWideColumnsAndNoHeadersDropsTheHeader) {
    TableOptions o;
    o.wide = true;
    o.no_headers = true;
    auto t = render_table(kRecords, kColumns, o);
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t.value(),
              "web   Running   10    <none>\n"
              "api   Pending   9     x,y\n"
              "db    <none>    100   <none>\n");
}

TEST(RenderTable, SortByJsonPathOrHeaderNumericWhenNumbers) {
    struct Case {
        std::string sort_by;
        std::string want_first_column;
    } cases[] = {
        {".name", "api db web "},          {"{.name}", "api db web "},
        {"replicas", "api web db "},       {"{.replicas}", "api web db "},
        {"Replicas", "api web db "},       {".status.phase", "db api web "},  // <none> sorts first
    };
    for (const auto& c : cases) {
        TableOptions o;
        o.no_headers = true;
        o.sort_by = c.sort_by;
        auto t = render_table(kRecords, kColumns, o);
        ASSERT_TRUE(t.ok()) << c.sort_by;
        std::string firsts;
        std::size_t pos = 0;
        while (pos < t.value().size()) {
            auto nl = t.value().find('\n', pos);
            auto line = t.value().substr(pos, nl - pos);
            firsts += line.substr(0, line.find(' ')) + " ";
            pos = nl + 1;
        }
        EXPECT_EQ(firsts, c.want_first_column) << c.sort_by;
    }
}

TEST(RenderTable, ACellTextShowsTheRecordItsWayAndSortsByTheField) {
    const std::vector<Column> columns = {{"Name", "name"},
                                         {"Replicas", "replicas", false, [](const boost::json::value& r) {
                                              return std::to_string(r.at("replicas").as_int64()) + " pods";
                                          }}};
    TableOptions o;
    o.sort_by = "Replicas";
    auto t = render_table(kRecords, columns, o);
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t.value(),
              "NAME   REPLICAS\n"
              "api    9 pods\n"
              "web    10 pods\n"
              "db     100 pods\n");
}

TEST(RenderTable, UnknownSortFieldIsAUsageError) {
    TableOptions o;
    o.sort_by = ".nope";
    auto t = render_table(kRecords, kColumns, o);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.error().code, "bad_usage");
}

TEST(ParseOutputFormat, AcceptsKubectlNamesOnly) {
    EXPECT_EQ(parse_output_format("").value(), OutputFormat::Table);
    EXPECT_EQ(parse_output_format("table").value(), OutputFormat::Table);
    EXPECT_EQ(parse_output_format("wide").value(), OutputFormat::Wide);
    EXPECT_EQ(parse_output_format("json").value(), OutputFormat::Json);
    EXPECT_EQ(parse_output_format("yaml").value(), OutputFormat::Yaml);
    EXPECT_FALSE(parse_output_format("xml").ok());
}

TEST(PrettyJson, IndentsTwoSpaces) {
    EXPECT_EQ(to_pretty_json(boost::json::parse(R"({"a":[1,{"b":null}],"c":{},"d":[]})")),
              "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"c\": {},\n  \"d\": []\n}\n");
}

TEST(Yaml, QuotesStringsYamlWouldReadAsOtherTypes) {
    const auto v = boost::json::parse(
        R"({"target":"1.36","version":"v1.36.3","on":"yes","n":3,"ok":true,"none":null,"empty":"","list":["a","1"]})");
    EXPECT_EQ(to_yaml(v),
              "target: \"1.36\"\nversion: v1.36.3\n\"on\": \"yes\"\n\"n\": 3\nok: true\nnone: ~\nempty: \"\"\nlist:\n  - a\n  - \"1\"\n");
}

TEST(Colour, OnlyOnATerminalWithoutNoColorOrDumbTerm) {
    EXPECT_TRUE(colour_enabled(true, nullptr, "xterm-256color"));
    EXPECT_FALSE(colour_enabled(false, nullptr, "xterm"));
    EXPECT_FALSE(colour_enabled(true, "1", "xterm"));
    EXPECT_TRUE(colour_enabled(true, "", "xterm"));  // NO_COLOR set but empty does not count
    EXPECT_FALSE(colour_enabled(true, nullptr, "dumb"));
    EXPECT_EQ(paint(Colour::Red, "x", false), "x");
    EXPECT_EQ(paint(Colour::Red, "x", true), "\x1b[31mx\x1b[0m");
}

}  // namespace
}  // namespace attune::cli
