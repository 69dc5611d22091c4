#include <attune/webhook/pki.hpp>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <memory>
#include <stdexcept>

namespace attune::webhook {
namespace {

template <class T, void (*F)(T*)>
struct Deleter {
    void operator()(T* p) const noexcept { F(p); }
};
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using X509Ptr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION, X509_EXTENSION_free>>;
using BnPtr = std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>>;

[[noreturn]] void openssl_fail(const std::string& what) {
    const unsigned long e = ERR_get_error();
    char buf[256] = {};
    if (e) ERR_error_string_n(e, buf, sizeof buf);
    ERR_clear_error();
    throw std::runtime_error("pki: " + what + (e ? std::string(": ") + buf : std::string()));
}

template <class T>
T* check(T* p, const char* what) {
    if (!p) openssl_fail(what);
    return p;
}

void check(int rc, const char* what) {
    if (rc != 1) openssl_fail(what);
}

BioPtr mem_bio(std::string_view s) {
    return BioPtr(check(BIO_new_mem_buf(s.data(), static_cast<int>(s.size())), "BIO_new_mem_buf"));
}

std::string bio_string(BIO* b) {
    char* data = nullptr;
    const long n = BIO_get_mem_data(b, &data);
    return std::string(data, static_cast<std::size_t>(n));
}

X509Ptr read_cert(std::string_view pem) {
    ERR_clear_error();
    auto b = mem_bio(pem);
    X509Ptr x(PEM_read_bio_X509(b.get(), nullptr, nullptr, nullptr));
    ERR_clear_error();
    return x;
}

PkeyPtr read_key(std::string_view pem) {
    auto b = mem_bio(pem);
    PkeyPtr k(PEM_read_bio_PrivateKey(b.get(), nullptr, nullptr, nullptr));
    ERR_clear_error();
    return k;
}

std::string cert_pem(X509* x) {
    BioPtr b(check(BIO_new(BIO_s_mem()), "BIO_new"));
    check(PEM_write_bio_X509(b.get(), x), "PEM_write_bio_X509");
    return bio_string(b.get());
}

std::string key_pem(EVP_PKEY* k) {
    BioPtr b(check(BIO_new(BIO_s_mem()), "BIO_new"));
    check(PEM_write_bio_PrivateKey(b.get(), k, nullptr, nullptr, 0, nullptr, nullptr), "PEM_write_bio_PrivateKey");
    return bio_string(b.get());
}

void add_ext(X509* x, X509V3_CTX* ctx, int nid, const std::string& value) {
    ExtPtr e(check(X509V3_EXT_conf_nid(nullptr, ctx, nid, value.c_str()), "X509V3_EXT_conf_nid"));
    check(X509_add_ext(x, e.get(), -1), "X509_add_ext");
}

// A certificate skeleton: v3, random positive 127-bit serial, validity, subject.
X509Ptr new_cert(EVP_PKEY* key, const std::string& cn, std::int64_t not_before, std::int64_t not_after) {
    X509Ptr x(check(X509_new(), "X509_new"));
    check(X509_set_version(x.get(), X509_VERSION_3), "X509_set_version");
    unsigned char serial[16];
    check(RAND_bytes(serial, sizeof serial), "RAND_bytes");
    serial[0] &= 0x7F;
    BnPtr bn(check(BN_bin2bn(serial, sizeof serial, nullptr), "BN_bin2bn"));
    check(BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(x.get())) ? 1 : 0, "BN_to_ASN1_INTEGER");
    check(ASN1_TIME_set(X509_getm_notBefore(x.get()), static_cast<time_t>(not_before)) ? 1 : 0, "notBefore");
    check(ASN1_TIME_set(X509_getm_notAfter(x.get()), static_cast<time_t>(not_after)) ? 1 : 0, "notAfter");
    check(X509_set_pubkey(x.get(), key), "X509_set_pubkey");
    X509_NAME* name = X509_get_subject_name(x.get());
    check(X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("attune"), -1, -1,
                                     0),
          "subject O");
    // A CN holds 64 characters at most (RFC 5280, ub-common-name), less than
    // <service>.<namespace>.svc can be; clients match the SANs, which hold
    // every name whole, so the CN is only a label and is cut.
    const std::string label = cn.substr(0, 64);
    check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(label.c_str()),
                                     -1, -1, 0),
          "subject CN");
    return x;
}

PkeyPtr new_key() { return PkeyPtr(check(EVP_EC_gen("P-256"), "EVP_EC_gen P-256")); }

std::int64_t to_unix(const ASN1_TIME* t) {
    std::tm tm{};
    if (ASN1_TIME_to_tm(t, &tm) != 1) return 0;
    return static_cast<std::int64_t>(timegm(&tm));
}

core::CertificateInfo info_of(X509* x) {
    core::CertificateInfo i;
    i.not_before = to_unix(X509_get0_notBefore(x));
    i.not_after = to_unix(X509_get0_notAfter(x));
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (X509_digest(x, EVP_sha256(), md, &n) == 1) {
        static const char* hex = "0123456789abcdef";
        for (unsigned int k = 0; k < n; ++k) {
            i.fingerprint += hex[md[k] >> 4];
            i.fingerprint += hex[md[k] & 15];
        }
    }
    return i;
}

}  // namespace

KeyPairPem generate_ca(const std::string& common_name, std::int64_t not_before, std::int64_t not_after) {
    auto key = new_key();
    auto x = new_cert(key.get(), common_name, not_before, not_after);
    check(X509_set_issuer_name(x.get(), X509_get_subject_name(x.get())), "X509_set_issuer_name");
    X509V3_CTX ctx;
    X509V3_set_ctx(&ctx, x.get(), x.get(), nullptr, nullptr, 0);
    add_ext(x.get(), &ctx, NID_basic_constraints, "critical,CA:TRUE,pathlen:0");
    add_ext(x.get(), &ctx, NID_key_usage, "critical,keyCertSign,cRLSign");
    add_ext(x.get(), &ctx, NID_subject_key_identifier, "hash");
    if (X509_sign(x.get(), key.get(), EVP_sha256()) <= 0) openssl_fail("X509_sign (CA)");
    return {cert_pem(x.get()), key_pem(key.get())};
}

KeyPairPem issue_serving_certificate(const KeyPairPem& ca, const ServingNames& names, std::int64_t not_before,
                                     std::int64_t not_after) {
    if (names.dns.empty() && names.ips.empty()) throw std::runtime_error("pki: a serving certificate needs a name");
    auto ca_cert = read_cert(ca.cert_pem);
    if (!ca_cert) throw std::runtime_error("pki: the CA certificate is not a PEM certificate");
    auto ca_key = read_key(ca.key_pem);
    if (!ca_key) throw std::runtime_error("pki: the CA key is not a PEM private key");
    auto key = new_key();
    const std::string cn = names.dns.empty() ? names.ips.front() : names.dns.front();
    auto x = new_cert(key.get(), cn, not_before, not_after);
    check(X509_set_issuer_name(x.get(), X509_get_subject_name(ca_cert.get())), "X509_set_issuer_name");
    X509V3_CTX ctx;
    X509V3_set_ctx(&ctx, ca_cert.get(), x.get(), nullptr, nullptr, 0);
    add_ext(x.get(), &ctx, NID_basic_constraints, "critical,CA:FALSE");
    add_ext(x.get(), &ctx, NID_key_usage, "critical,digitalSignature,keyEncipherment");
    add_ext(x.get(), &ctx, NID_ext_key_usage, "serverAuth");
    add_ext(x.get(), &ctx, NID_authority_key_identifier, "keyid:always");
    std::string san;
    for (const auto& d : names.dns) san += (san.empty() ? "DNS:" : ",DNS:") + d;
    for (const auto& ip : names.ips) san += (san.empty() ? "IP:" : ",IP:") + ip;
    add_ext(x.get(), &ctx, NID_subject_alt_name, san);
    if (X509_sign(x.get(), ca_key.get(), EVP_sha256()) <= 0) openssl_fail("X509_sign (serving)");
    return {cert_pem(x.get()), key_pem(key.get())};
}

std::optional<core::CertificateInfo> certificate_info(std::string_view pem) {
    auto x = read_cert(pem);
    if (!x) return std::nullopt;
    return info_of(x.get());
}

std::vector<BundleEntry> split_bundle(std::string_view pem) {
    std::vector<BundleEntry> out;
    constexpr std::string_view kBegin = "-----BEGIN CERTIFICATE-----";
    constexpr std::string_view kEnd = "-----END CERTIFICATE-----";
    std::size_t pos = 0;
    while ((pos = pem.find(kBegin, pos)) != std::string_view::npos) {
        const std::size_t stop = pem.find(kEnd, pos);
        if (stop == std::string_view::npos) break;
        const std::string block = std::string(pem.substr(pos, stop + kEnd.size() - pos)) + "\n";
        pos = stop + kEnd.size();
        if (auto x = read_cert(block)) out.push_back({info_of(x.get()), block});
    }
    return out;
}

bool key_matches(std::string_view cert, std::string_view key) {
    auto x = read_cert(cert);
    auto k = read_key(key);
    const bool ok = x && k && X509_check_private_key(x.get(), k.get()) == 1;
    ERR_clear_error();
    return ok;
}

bool signed_by(std::string_view cert, std::string_view ca) {
    auto x = read_cert(cert);
    auto c = read_cert(ca);
    if (!x || !c) return false;
    if (X509_NAME_cmp(X509_get_issuer_name(x.get()), X509_get_subject_name(c.get())) != 0) return false;
    EVP_PKEY* pub = X509_get0_pubkey(c.get());
    const bool ok = pub && X509_verify(x.get(), pub) == 1;
    ERR_clear_error();
    return ok;
}

bool covers_names(std::string_view cert, const ServingNames& names) {
    auto x = read_cert(cert);
    if (!x) return false;
    for (const auto& d : names.dns)
        if (X509_check_host(x.get(), d.c_str(), d.size(), X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS, nullptr) != 1)
            return false;
    for (const auto& ip : names.ips)
        if (X509_check_ip_asc(x.get(), ip.c_str(), 0) != 1) return false;
    return true;
}

}  // namespace attune::webhook
