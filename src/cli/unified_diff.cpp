#include "unified_diff.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace attune::cli {
namespace {

// Lines with their newline, so "x" at the end of a text without one does not
// match "x\n": diff reports that difference too.
std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto nl = text.find('\n', start);
        const auto end = nl == std::string_view::npos ? text.size() : nl + 1;
        out.push_back(text.substr(start, end - start));
        start = end;
    }
    return out;
}

DiffLine line_of(char op, std::string_view raw) {
    const bool nl = !raw.empty() && raw.back() == '\n';
    return {op, std::string(nl ? raw.substr(0, raw.size() - 1) : raw), !nl};
}

// Past this many cells the middle is reported as removed then added: still
// a correct diff, and a manifest never gets near it.
constexpr std::size_t kMaxLcsCells = 16u * 1024u * 1024u;

}  // namespace

std::vector<DiffLine> diff_lines(std::string_view before, std::string_view after) {
    const auto a = split_lines(before), b = split_lines(after);
    std::size_t prefix = 0;
    while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
    std::size_t suffix = 0;
    while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
           a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
        ++suffix;
    const std::size_t n = a.size() - prefix - suffix, m = b.size() - prefix - suffix;

    std::vector<DiffLine> out;
    out.reserve(a.size() + b.size());
    for (std::size_t i = 0; i < prefix; ++i) out.push_back(line_of(' ', a[i]));
    auto x = [&](std::size_t i) { return a[prefix + i]; };
    auto y = [&](std::size_t j) { return b[prefix + j]; };
    if (n > 0 && m > 0 && (n + 1) * (m + 1) <= kMaxLcsCells) {
        // lcs[i][j]: the longest common subsequence of x[i..] and y[j..].
        std::vector<std::uint32_t> lcs((n + 1) * (m + 1), 0);
        auto at = [&](std::size_t i, std::size_t j) -> std::uint32_t& { return lcs[i * (m + 1) + j]; };
        for (std::size_t i = n; i-- > 0;)
            for (std::size_t j = m; j-- > 0;)
                at(i, j) = x(i) == y(j) ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
        std::size_t i = 0, j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && x(i) == y(j)) {
                out.push_back(line_of(' ', x(i++)));
                ++j;
            } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
                out.push_back(line_of('-', x(i++)));  // removals first, as diff prints them
            } else {
                out.push_back(line_of('+', y(j++)));
            }
        }
    } else {
        for (std::size_t i = 0; i < n; ++i) out.push_back(line_of('-', x(i)));
        for (std::size_t j = 0; j < m; ++j) out.push_back(line_of('+', y(j)));
    }
    for (std::size_t i = a.size() - suffix; i < a.size(); ++i) out.push_back(line_of(' ', a[i]));
    return out;
}

std::string unified_diff(std::string_view before, std::string_view after, const UnifiedDiffOptions& options) {
    const auto script = diff_lines(before, after);
    const auto ctx = static_cast<std::size_t>(std::max(options.context, 0));
    std::vector<std::size_t> changes;
    for (std::size_t k = 0; k < script.size(); ++k)
        if (script[k].op != ' ') changes.push_back(k);
    if (changes.empty()) return "";

    // Lines of each side before script[k], for the hunk headers.
    std::vector<std::size_t> old_before(script.size() + 1, 0), new_before(script.size() + 1, 0);
    for (std::size_t k = 0; k < script.size(); ++k) {
        old_before[k + 1] = old_before[k] + (script[k].op != '+');
        new_before[k + 1] = new_before[k] + (script[k].op != '-');
    }
    // "l,s"; diff leaves out ",1", and an empty range names the line before it.
    auto range = [](std::size_t first_line_before, std::size_t count) {
        const std::size_t start = count == 0 ? first_line_before : first_line_before + 1;
        return std::to_string(start) + (count == 1 ? "" : "," + std::to_string(count));
    };

    std::string out = "--- " + options.from_label + "\n+++ " + options.to_label + "\n";
    std::size_t c = 0;
    while (c < changes.size()) {
        std::size_t last = c;
        // Merge the next change while the kept lines between them fit two contexts.
        while (last + 1 < changes.size() && changes[last + 1] - changes[last] - 1 <= 2 * ctx) ++last;
        const std::size_t begin = changes[c] > ctx ? changes[c] - ctx : 0;
        const std::size_t end = std::min(script.size(), changes[last] + ctx + 1);
        out += "@@ -" + range(old_before[begin], old_before[end] - old_before[begin]) + " +" +
               range(new_before[begin], new_before[end] - new_before[begin]) + " @@\n";
        for (std::size_t k = begin; k < end; ++k) {
            out += script[k].op;
            out += script[k].text;
            out += '\n';
            if (script[k].no_newline) out += "\\ No newline at end of file\n";
        }
        c = last + 1;
    }
    return out;
}

}  // namespace attune::cli
