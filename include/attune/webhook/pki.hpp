#pragma once
// The webhook's own PKI with OpenSSL 3: a CA, serving certificates it
// signs, and reading back what a Secret holds. No I/O, no clock: times are
// passed in as unix seconds. Keys are ECDSA P-256 (small, fast handshakes,
// accepted by every Kubernetes client).
#include <attune/core/admission/certificate_rotation.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attune::webhook {

struct KeyPairPem {
    std::string cert_pem;
    std::string key_pem;  // unencrypted PKCS#8
};

struct ServingNames {
    std::vector<std::string> dns;  // e.g. attune-webhook.attune-system.svc
    std::vector<std::string> ips;  // e.g. 127.0.0.1 for a url clientConfig
};

// Throw std::runtime_error with OpenSSL's reason.
KeyPairPem generate_ca(const std::string& common_name, std::int64_t not_before, std::int64_t not_after);
KeyPairPem issue_serving_certificate(const KeyPairPem& ca, const ServingNames& names, std::int64_t not_before,
                                     std::int64_t not_after);

// Validity and SHA-256 fingerprint of the first certificate in `pem`;
// nullopt when there is none.
std::optional<core::CertificateInfo> certificate_info(std::string_view pem);

struct BundleEntry {
    core::CertificateInfo info;
    std::string pem;
};
// Every certificate of a PEM bundle, in order; unreadable blocks are skipped.
std::vector<BundleEntry> split_bundle(std::string_view pem);

bool key_matches(std::string_view cert_pem, std::string_view key_pem);
// `cert_pem` carries `ca_pem`'s subject as issuer and its signature verifies.
bool signed_by(std::string_view cert_pem, std::string_view ca_pem);
// Every DNS name and IP of `names` is in the certificate's SANs.
bool covers_names(std::string_view cert_pem, const ServingNames& names);

}  // namespace attune::webhook
