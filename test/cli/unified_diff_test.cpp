#include "unified_diff.hpp"

#include <gtest/gtest.h>

namespace attune::cli {
namespace {

constexpr const char* kTen = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";

// Every expected text is what GNU `diff -u --label A --label B` prints for
// the same two files.
TEST(UnifiedDiff, MatchesDiffU) {
    struct Case {
        const char* what;
        const char* before;
        const char* after;
        int context;
        const char* want;
    } cases[] = {
        {"equal texts: no diff", kTen, kTen, 3, ""},
        {"both empty", "", "", 3, ""},
        {"one line in the middle, three lines of context", kTen, "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n", 3,
         "--- A\n+++ B\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"},
        {"the first line: the context is cut at the start", kTen, "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", 3,
         "--- A\n+++ B\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n"},
        {"changes more than two contexts apart: two hunks", kTen, "one\n2\n3\n4\n5\n6\n7\n8\n9\nten\n", 3,
         "--- A\n+++ B\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n@@ -7,4 +7,4 @@\n 7\n 8\n 9\n-10\n+ten\n"},
        {"changes within two contexts: one hunk", kTen, "1\n2\nthree\n4\n5\n6\n7\n8\nnine\n10\n", 3,
         "--- A\n+++ B\n@@ -1,10 +1,10 @@\n 1\n 2\n-3\n+three\n 4\n 5\n 6\n 7\n 8\n-9\n+nine\n 10\n"},
        {"no context", kTen, "1\n2\nthree\n4\n5\n6\n7\n8\nnine\n10\n", 0,
         "--- A\n+++ B\n@@ -3 +3 @@\n-3\n+three\n@@ -9 +9 @@\n-9\n+nine\n"},
        {"an inserted line", kTen, "1\n2\n3\n4\n5\n6\n7\nx\n8\n9\n10\n", 3,
         "--- A\n+++ B\n@@ -5,6 +5,7 @@\n 5\n 6\n 7\n+x\n 8\n 9\n 10\n"},
        {"from nothing", "", "a\nb\n", 3, "--- A\n+++ B\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
        {"to nothing", "a\nb\n", "", 3, "--- A\n+++ B\n@@ -1,2 +0,0 @@\n-a\n-b\n"},
        {"the newline at the end is a difference", "a\nb\n", "a\nb", 3,
         "--- A\n+++ B\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n"},
    };
    for (const auto& c : cases) EXPECT_EQ(unified_diff(c.before, c.after, {"A", "B", c.context}), c.want) << c.what;
}

// The edit script keeps the longest common subsequence, removals before
// additions within a changed run.
TEST(UnifiedDiff, EditScriptIsALongestCommonSubsequence) {
    struct Case {
        const char* what;
        const char* before;
        const char* after;
        std::string want;  // one op per line
    } cases[] = {
        {"kept", "a\nb\n", "a\nb\n", "  "},
        {"replaced", "a\nb\nc\n", "a\nx\nc\n", " -+ "},
        {"moved line: one kept, one moved", "a\nb\nc\n", "b\nc\na\n", "-  +"},
        {"interleaved", "a\nb\nc\nd\n", "a\nc\nd\ne\n", " -  +"},
        {"only additions", "", "x\ny\n", "++"},
    };
    for (const auto& c : cases) {
        std::string ops;
        for (const auto& l : diff_lines(c.before, c.after)) ops += l.op;
        EXPECT_EQ(ops, c.want) << c.what;
    }
    EXPECT_EQ(diff_lines("a\nb", "a\nb")[1], (DiffLine{' ', "b", true}));
}

}  // namespace
}  // namespace attune::cli
