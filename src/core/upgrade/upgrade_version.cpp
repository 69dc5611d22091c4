#include "attune/core/upgrade/upgrade_version.hpp"

#include "attune/core/model/capabilities.hpp"

#include <charconv>

namespace attune::core {

std::string KubeMinor::str() const { return std::to_string(major) + "." + std::to_string(minor); }

std::optional<KubeMinor> parse_kube_minor(std::string_view v) {
    // The same reading of a git version the capabilities use.
    auto mm = parse_git_version(v);
    if (!mm) return std::nullopt;
    return KubeMinor{mm->first, mm->second};
}

std::strong_ordering DottedVersion::operator<=>(const DottedVersion& o) const {
    const auto n = std::max(parts.size(), o.parts.size());
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned long a = i < parts.size() ? parts[i] : 0;
        const unsigned long b = i < o.parts.size() ? o.parts[i] : 0;
        if (a != b) return a <=> b;
    }
    return std::strong_ordering::equal;
}

std::optional<DottedVersion> parse_dotted_version(std::string_view v) {
    DottedVersion out;
    out.text = std::string(v);
    if (!v.empty() && (v.front() == 'v' || v.front() == 'V')) v.remove_prefix(1);
    while (true) {
        unsigned long n = 0;
        auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
        if (ec != std::errc{} || p == v.data()) return std::nullopt;
        out.parts.push_back(n);
        v.remove_prefix(static_cast<std::size_t>(p - v.data()));
        if (v.empty()) break;
        if (v.front() == '.') {
            v.remove_prefix(1);
            continue;
        }
        // A pre-release or build suffix ("-ubi", "+k3s1", "_amd64") ends the number.
        if (v.front() == '-' || v.front() == '+' || v.front() == '_') break;
        return std::nullopt;
    }
    return out;
}

std::optional<std::string> image_tag(std::string_view image) {
    if (auto at = image.find('@'); at != std::string_view::npos) image = image.substr(0, at);
    // The tag follows the last ':' of the last path component; an earlier ':'
    // is a registry port.
    const auto slash = image.rfind('/');
    const auto last = slash == std::string_view::npos ? image : image.substr(slash + 1);
    const auto colon = last.rfind(':');
    if (colon == std::string_view::npos || colon + 1 >= last.size()) return std::nullopt;
    return std::string(last.substr(colon + 1));
}

}  // namespace attune::core
