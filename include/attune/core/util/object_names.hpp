#pragma once
// Kubernetes' name rules (apimachinery pkg/util/validation): RFC 1123 labels
// and subdomains for object names, qualified names and values for labels.
// Each answers "" when the text is valid, else what is wrong with it, to be
// put after "it" ("... is not a namespace name: it is empty"). Pure.
#include <string>
#include <string_view>

namespace attune::core {

// 1 to 63 characters, lowercase alphanumerics or '-', alphanumeric at both
// ends: namespaces, container names.
std::string dns1123_label_error(std::string_view name);

// 1 to 253 characters, dot-separated labels of lowercase alphanumerics or
// '-', alphanumeric at both ends: most object names.
std::string dns1123_subdomain_error(std::string_view name);

// A label key: an optional DNS subdomain prefix and '/', then a name of 1 to
// 63 characters, alphanumerics, '-', '_' or '.', alphanumeric at both ends.
std::string label_key_error(std::string_view key);

// A label value: empty, or at most 63 characters of the key's name form.
std::string label_value_error(std::string_view value);

}  // namespace attune::core
