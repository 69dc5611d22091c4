#pragma once
// Standard base64 (RFC 4648): kubeconfig "-data" fields, Secret data,
// AdmissionReview patches and caBundles. Pure.
#include <optional>
#include <string>
#include <string_view>

namespace attune::core {

// Whitespace (line breaks from YAML folding) is skipped; padding is optional
// but must be correct when present. nullopt on any invalid character.
std::optional<std::string> base64_decode(std::string_view in);
std::string base64_encode(std::string_view in);

}  // namespace attune::core
