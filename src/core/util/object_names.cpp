#include "attune/core/util/object_names.hpp"

namespace attune::core {

namespace {

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool alnum(char c) { return lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

// The name part of a qualified name, or a non-empty label value.
std::string qualified_part_error(std::string_view s) {
    if (s.size() > 63) return "is longer than 63 characters";
    for (char c : s)
        if (!alnum(c) && c != '-' && c != '_' && c != '.') return "may contain only letters, digits, '-', '_' and '.'";
    if (!alnum(s.front()) || !alnum(s.back())) return "must start and end with a letter or digit";
    return {};
}

}  // namespace

std::string dns1123_label_error(std::string_view name) {
    if (name.empty()) return "is empty";
    if (name.size() > 63) return "is longer than 63 characters";
    for (char c : name)
        if (!lower_alnum(c) && c != '-') return "may contain only lowercase letters, digits and '-'";
    if (!lower_alnum(name.front()) || !lower_alnum(name.back()))
        return "must start and end with a lowercase letter or digit";
    return {};
}

std::string dns1123_subdomain_error(std::string_view name) {
    if (name.empty()) return "is empty";
    if (name.size() > 253) return "is longer than 253 characters";
    for (char c : name)
        if (!lower_alnum(c) && c != '-' && c != '.') return "may contain only lowercase letters, digits, '-' and '.'";
    for (std::string_view rest = name;;) {
        const auto dot = rest.find('.');
        const auto part = rest.substr(0, dot);
        if (part.empty() || !lower_alnum(part.front()) || !lower_alnum(part.back()))
            return "must start and end with a lowercase letter or digit, around each '.' too";
        if (dot == std::string_view::npos) break;
        rest = rest.substr(dot + 1);
    }
    return {};
}

std::string label_key_error(std::string_view key) {
    if (key.empty()) return "is empty";
    std::string_view name = key;
    if (const auto slash = key.find('/'); slash != std::string_view::npos) {
        if (auto why = dns1123_subdomain_error(key.substr(0, slash)); !why.empty()) return "has a prefix that " + why;
        name = key.substr(slash + 1);
        if (name.empty()) return "has nothing after its '/'";
    }
    return qualified_part_error(name);
}

std::string label_value_error(std::string_view value) {
    return value.empty() ? std::string() : qualified_part_error(value);
}

}  // namespace attune::core
