#pragma once
// Version values the upgrade gate compares: Kubernetes minors ("1.36",
// "v1.35.4"), addon and containerd versions ("v3.29.1", "2.0.0-sim") and the
// tag of a container image. Pure.
#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attune::core {

struct KubeMinor {
    unsigned major = 0;
    unsigned minor = 0;
    auto operator<=>(const KubeMinor&) const = default;
    std::string str() const;  // "1.36"
    KubeMinor next() const { return {major, minor + 1}; }
};

// "1.36", "1.36.2", "v1.35.4+k3s1" -> {1, 36} (the patch is irrelevant to
// compatibility). nullopt for anything else.
std::optional<KubeMinor> parse_kube_minor(std::string_view v);

// A dotted numeric version with an optional leading "v" and any suffix after
// '-', '+' or '_' ignored: "v3.29.1", "1.16.2-ubi", "26.3.0", "2.0.0-sim".
// Components compare numerically, missing ones as 0 ("1.7" == "1.7.0").
struct DottedVersion {
    std::vector<unsigned long> parts;
    std::string text;  // as written, for messages
    std::strong_ordering operator<=>(const DottedVersion& o) const;
    bool operator==(const DottedVersion& o) const { return (*this <=> o) == 0; }
};

std::optional<DottedVersion> parse_dotted_version(std::string_view v);

// The tag of an image reference: "registry:5000/calico/node:v3.29.1@sha256:..."
// -> "v3.29.1". nullopt for an untagged or digest-only reference.
std::optional<std::string> image_tag(std::string_view image);

}  // namespace attune::core
