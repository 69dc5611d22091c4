// The one table of annotation and label keys (core::kAnnotationKeys) against
// the table docs/api.md shows users, and against the sources: a key spelled
// anywhere else is a second copy that can drift.
#include "attune/core/policy/annotations.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace attune::core {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

using Row = std::tuple<std::string, std::string, bool>;  // key, kind, prefix

// The rows of the "## Annotations and labels" section of docs/api.md.
std::set<Row> documented_keys(const std::string& api_md) {
    std::set<Row> out;
    std::istringstream in(api_md);
    std::string line;
    bool inside = false;
    static const std::regex kRow(R"re(^\| `([^`]+)` \| ([a-z, ]+?)( \(prefix\))? \|)re");
    while (std::getline(in, line)) {
        if (line.starts_with("## ")) inside = line == "## Annotations and labels";
        std::smatch m;
        if (inside && std::regex_search(line, m, kRow) && m[1].str() != "key")
            out.emplace(m[1].str(), m[2].str(), m[3].matched);
    }
    return out;
}

TEST(AnnotationKeys, DocsTableListsExactlyTheCodeTable) {
    const std::string text = read_text(fs::path(ATTUNE_SOURCE_ROOT) / "docs" / "api.md");
    ASSERT_FALSE(text.empty()) << "docs/api.md not read";
    std::set<Row> code;
    for (const auto& k : kAnnotationKeys) code.emplace(std::string(k.key), std::string(k.kind), k.prefix);
    EXPECT_EQ(code.size(), kAnnotationKeys.size()) << "a key is listed twice in kAnnotationKeys";
    const auto docs = documented_keys(text);
    for (const auto& r : code)
        EXPECT_TRUE(docs.contains(r)) << "docs/api.md lacks `" << std::get<0>(r) << "` | " << std::get<1>(r)
                                      << (std::get<2>(r) ? " (prefix)" : "");
    for (const auto& r : docs)
        EXPECT_TRUE(code.contains(r)) << "docs/api.md lists `" << std::get<0>(r) << "` | " << std::get<1>(r)
                                      << ", which kAnnotationKeys does not";
}

TEST(AnnotationKeys, EveryKeyHasTheAttunePrefix) {
    for (const auto& k : kAnnotationKeys) {
        EXPECT_TRUE(k.key.starts_with(kKeyPrefix)) << k.key;
        EXPECT_GT(k.key.size(), kKeyPrefix.size()) << k.key;
    }
}

// A string literal "attune.io/<key>" in include/, src/ or webhook/ outside
// annotations.hpp (comment lines aside) is a second spelling of a key. API groups and Event
// reporting controllers share the prefix but are not keys, and go_adoption.hpp
// spells the Go Attune's own keys, which this manager neither reads nor writes.
TEST(AnnotationKeys, NoKeyIsSpelledOutsideTheTable) {
    const std::set<std::string> not_keys = {"attune.io/v1alpha1", "attune.io/attune-manager",
                                            "attune.io/upgrade-detector"};
    static const std::regex kLiteral(R"re("attune\.io/[^"]*")re");
    const fs::path root(ATTUNE_SOURCE_ROOT);
    const fs::path table = root / "include" / "attune" / "core" / "policy" / "annotations.hpp";
    const fs::path go_keys = root / "include" / "attune" / "core" / "safety" / "go_adoption.hpp";
    int files = 0;
    for (const char* dir : {"include", "src", "webhook"})
        for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
            const auto ext = e.path().extension();
            if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp") || e.path() == table || e.path() == go_keys)
                continue;
            ++files;
            std::istringstream in(read_text(e.path()));
            std::string line;
            while (std::getline(in, line)) {
                const auto first = line.find_first_not_of(' ');
                if (first != std::string::npos && line.compare(first, 2, "//") == 0) continue;  // may quote a key
                for (std::sregex_iterator it(line.begin(), line.end(), kLiteral), end; it != end; ++it) {
                    const std::string s = it->str().substr(1, it->str().size() - 2);
                    EXPECT_TRUE(not_keys.contains(s)) << e.path().lexically_relative(root).string() << " spells " << s
                                                      << "; use the constant in core/policy/annotations.hpp";
                }
            }
        }
    EXPECT_GT(files, 100) << "the sources were not found under " << root;
}

}  // namespace
}  // namespace attune::core
