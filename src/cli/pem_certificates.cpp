#include "pem_certificates.hpp"

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

namespace attune::cli {

namespace {

std::int64_t unix_seconds(const ASN1_TIME* t) {
    struct tm tm {};
    if (t == nullptr || ASN1_TIME_to_tm(t, &tm) != 1) return 0;
    return static_cast<std::int64_t>(timegm(&tm));
}

}  // namespace

std::vector<certificate_validity> certificate_validities(std::string_view pem) {
    std::vector<certificate_validity> out;
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
    if (!bio) return out;
    while (true) {
        X509* raw = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr);
        if (raw == nullptr) break;
        std::unique_ptr<X509, decltype(&X509_free)> cert(raw, X509_free);
        certificate_validity v;
        v.not_before = unix_seconds(X509_get0_notBefore(cert.get()));
        v.not_after = unix_seconds(X509_get0_notAfter(cert.get()));
        out.push_back(v);
    }
    ERR_clear_error();  // the read that ended the loop left its error behind
    return out;
}

}  // namespace attune::cli
