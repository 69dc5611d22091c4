#pragma once
// A line-based unified diff (the format of `diff -u` and `kubectl diff`):
// `--- a` / `+++ b` headers, then hunks `@@ -l,s +l,s @@` of changed lines
// with `context` unchanged lines around them; hunks whose context would
// touch are merged. The line matching is a longest common subsequence over
// the lines between the common prefix and suffix, so an edit of a few lines
// in a manifest costs little whatever its length. Pure.
#include <string>
#include <string_view>
#include <vector>

namespace attune::cli {

struct UnifiedDiffOptions {
    std::string from_label;  // "a/shop/Deployment/web", after "--- "
    std::string to_label;    // after "+++ "
    int context = 3;
};

// One line of the edit script: ' ' kept, '-' only in `before`, '+' only in `after`.
struct DiffLine {
    char op = ' ';
    std::string text;         // without its newline
    bool no_newline = false;  // the last line of its side, which has no newline
    friend bool operator==(const DiffLine&, const DiffLine&) = default;
};

// The edit script from `before` to `after`, split at '\n' (a final newline
// ends the last line; it does not start an empty one).
std::vector<DiffLine> diff_lines(std::string_view before, std::string_view after);

// The unified diff; "" when the texts are equal. A side whose last line has
// no newline gets `\ No newline at end of file` after that line, as diff does.
std::string unified_diff(std::string_view before, std::string_view after, const UnifiedDiffOptions& options);

}  // namespace attune::cli
