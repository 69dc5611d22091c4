#include "attune/core/admission/certificate_rotation.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <set>

namespace attune::core {
namespace {
using namespace std::chrono_literals;

CertificateInfo cert(const char* fp, std::int64_t from, std::int64_t to) { return {from, to, fp}; }

RotationSettings settings() {
    RotationSettings s;
    s.ca_validity = 3000s;
    s.serving_validity = 900s;
    s.renew_fraction = 1.0 / 3.0;
    s.ca_overlap = 300s;
    return s;
}

// A healthy Secret at t=0: CA 0..3000, serving 0..900.
CertificateState healthy() {
    CertificateState s;
    s.ca = cert("ca1", 0, 3000);
    s.serving = cert("srv1", 0, 900);
    s.serving_signed_by_ca = true;
    s.serving_covers_names = true;
    s.bundle = {*s.ca};
    return s;
}

TEST(RenewalDueAt, IsTheLastShareOfTheLifetime) {
    EXPECT_EQ(renewal_due_at(cert("x", 0, 900), 1.0 / 3.0), 600);
    EXPECT_EQ(renewal_due_at(cert("x", 100, 1100), 0.5), 600);
    EXPECT_EQ(renewal_due_at(cert("x", 100, 50), 0.5), 50);  // nonsense lifetime: due at expiry
}

TEST(PlanCertificates, AnEmptySecretBootstrapsACaAndAServingCertificate) {
    const auto p = plan_certificates(CertificateState{}, 0, settings());
    EXPECT_TRUE(p.new_ca);
    EXPECT_TRUE(p.issue_serving);
    EXPECT_FALSE(p.stage_next_ca);
    EXPECT_EQ(p.bundle, std::vector<std::string>{kPlannedNewCa});
    EXPECT_TRUE(p.bundle_changed);
    EXPECT_EQ(p.reasons.front(), "bootstrap");
}

TEST(PlanCertificates, AHealthySecretNeedsNothingUntilTheServingRenewal) {
    const auto p = plan_certificates(healthy(), 100, settings());
    EXPECT_FALSE(p.writes());
    EXPECT_EQ(p.next_review_at, 600);
}

TEST(PlanCertificates, ServingRenewalReissuesOnlyTheServingCertificate) {
    const auto p = plan_certificates(healthy(), 600, settings());
    EXPECT_TRUE(p.issue_serving);
    EXPECT_FALSE(p.new_ca || p.stage_next_ca || p.promote_next_ca || p.bundle_changed);
    EXPECT_EQ(p.reasons, std::vector<std::string>{"serving renewal due"});
}

TEST(PlanCertificates, AServingCertificateFromAnotherCaOrWithoutTheNamesIsReplaced) {
    auto s = healthy();
    s.serving_signed_by_ca = false;
    EXPECT_TRUE(plan_certificates(s, 10, settings()).issue_serving);
    s = healthy();
    s.serving_covers_names = false;
    EXPECT_TRUE(plan_certificates(s, 10, settings()).issue_serving);
}

TEST(PlanCertificates, CaRenewalStagesTheNextCaInTheBundleFirst) {
    const auto p = plan_certificates(healthy(), 2000, settings());
    EXPECT_TRUE(p.stage_next_ca);
    EXPECT_FALSE(p.promote_next_ca);
    EXPECT_TRUE(p.issue_serving);  // srv1 expired long ago in this snapshot
    EXPECT_EQ(p.bundle, (std::vector<std::string>{"ca1", kPlannedNextCa}));
}

TEST(PlanCertificates, TheStagedCaSignsOnlyAfterTheOverlap) {
    auto s = healthy();
    s.serving = cert("srv3", 1900, 2800);
    s.next_ca = cert("ca2", 2000, 5000);
    s.next_ca_staged_at = 2000;
    s.bundle = {*s.ca, *s.next_ca};
    auto wait = plan_certificates(s, 2299, settings());
    EXPECT_FALSE(wait.writes());
    EXPECT_EQ(wait.next_review_at, 2300);
    auto go = plan_certificates(s, 2300, settings());
    EXPECT_TRUE(go.promote_next_ca);
    EXPECT_TRUE(go.issue_serving);
    // The old CA stays: replicas still serving srv3 must stay trusted.
    EXPECT_EQ(go.bundle, (std::vector<std::string>{"ca1", "ca2"}));
    EXPECT_FALSE(go.bundle_changed);
}

TEST(PlanCertificates, TheOldCaLeavesTheBundleWhenItExpires) {
    CertificateState s;
    s.ca = cert("ca2", 2000, 5000);
    s.serving = cert("srv4", 2300, 3200);
    s.serving_signed_by_ca = true;
    s.serving_covers_names = true;
    s.bundle = {cert("ca1", 0, 3000), *s.ca};
    auto before = plan_certificates(s, 2500, settings());
    EXPECT_FALSE(before.writes());
    EXPECT_EQ(before.next_review_at, 2900);  // srv4's renewal comes before ca1's expiry
    auto after = plan_certificates(s, 3000, settings());
    EXPECT_TRUE(after.bundle_changed);
    EXPECT_EQ(after.bundle, std::vector<std::string>{"ca2"});
}

TEST(PlanCertificates, AnExpiredCaIsReplacedOrItsStagedSuccessorPromotedEarly) {
    auto s = healthy();
    auto p = plan_certificates(s, 3000, settings());
    EXPECT_TRUE(p.new_ca);
    EXPECT_EQ(p.bundle, std::vector<std::string>{kPlannedNewCa});  // the expired CA is dropped
    s.next_ca = cert("ca2", 2000, 5000);
    s.next_ca_staged_at = 2990;
    s.bundle.push_back(*s.next_ca);
    p = plan_certificates(s, 3000, settings());
    EXPECT_FALSE(p.new_ca);
    EXPECT_TRUE(p.promote_next_ca);
    EXPECT_EQ(p.bundle, std::vector<std::string>{"ca2"});
}

TEST(PlanCertificates, TheBundleIsBoundedButKeepsTheSigningAndStagedCas) {
    auto s = healthy();
    s.next_ca = cert("ca9", 10, 9000);
    s.next_ca_staged_at = 10;
    s.bundle = {cert("old1", 0, 4000), cert("old2", 0, 4100), cert("old3", 0, 4200), *s.ca, *s.next_ca};
    const auto p = plan_certificates(s, 20, settings());
    EXPECT_EQ(p.bundle.size(), 4u);
    EXPECT_EQ(p.bundle, (std::vector<std::string>{"old2", "old3", "ca1", "ca9"}));
}

// Rotation without a failed admission, simulated over many lifetimes: the
// apiserver trusts a bundle only `propagation` after it was written, and a
// replica serves the Secret's certificate only `reload` after it was
// written. At every second the certificate some replica serves must be
// valid and signed by a CA the apiserver trusts.
TEST(PlanCertificates, RotatingForeverNeverServesAnUntrustedCertificate) {
    const auto cfg = settings();
    constexpr std::int64_t kPropagation = 60, kReload = 30;
    struct Issued {
        CertificateInfo info;
        std::string issuer;
    };
    std::map<std::string, Issued> certs;
    int serial = 0;
    auto make = [&](const char* prefix, std::int64_t now, std::chrono::seconds validity, std::string issuer,
                    std::int64_t cap) {
        const std::string fp = prefix + std::to_string(++serial);
        certs[fp] = {{now - 5, std::min(now + validity.count(), cap), fp}, std::move(issuer)};
        return certs[fp].info;
    };
    CertificateState secret;
    std::deque<std::pair<std::int64_t, std::vector<std::string>>> bundles;  // (written at, fingerprints)
    std::deque<std::pair<std::int64_t, std::string>> servings;              // (written at, fingerprint)
    int ca_rotations = 0, serving_rotations = 0;
    std::int64_t next_review = 0;
    for (std::int64_t now = 0; now < 40000; ++now) {
        if (now >= next_review) {
            const auto p = plan_certificates(secret, now, cfg);
            if (p.writes()) {
                std::optional<CertificateInfo> new_ca, staged;
                if (p.new_ca) new_ca = make("ca", now, cfg.ca_validity, "", INT64_MAX);
                if (p.stage_next_ca) staged = make("ca", now, cfg.ca_validity, "", INT64_MAX);
                if (p.new_ca) secret.ca = new_ca;
                if (p.promote_next_ca) {
                    secret.ca = secret.next_ca;
                    secret.next_ca.reset();
                    ++ca_rotations;
                }
                if (p.stage_next_ca) {
                    secret.next_ca = staged;
                    secret.next_ca_staged_at = now;
                }
                if (p.issue_serving) {
                    secret.serving = make("srv", now, cfg.serving_validity, secret.ca->fingerprint, secret.ca->not_after);
                    secret.serving_signed_by_ca = secret.serving_covers_names = true;
                    servings.emplace_back(now, secret.serving->fingerprint);
                    ++serving_rotations;
                }
                secret.bundle.clear();
                std::vector<std::string> fps;
                for (auto id : p.bundle) {
                    if (id == kPlannedNewCa) id = new_ca->fingerprint;
                    if (id == kPlannedNextCa) id = staged->fingerprint;
                    secret.bundle.push_back(certs.at(id).info);
                    fps.push_back(id);
                }
                bundles.emplace_back(now, fps);
                next_review = now;  // re-plan at once, as the shell does after a write
                continue;
            }
            next_review = p.next_review_at;
        }
        // What the apiserver trusts now, and what the slowest replica serves now.
        std::set<std::string> trusted;
        for (const auto& [at, fps] : bundles)
            if (at + kPropagation <= now) trusted = std::set<std::string>(fps.begin(), fps.end());
        if (trusted.empty()) continue;  // before the first bundle arrived: nothing served yet either
        // The writer serves a new certificate at once, the slowest replica
        // up to `reload` later: anything written since, plus the last one before.
        std::vector<std::string> served;
        for (const auto& [at, fp] : servings) {
            if (at > now) break;
            if (at + kReload <= now) served.assign(1, fp);
            else served.push_back(fp);
        }
        for (const auto& fp : served) {
            const auto& c = certs.at(fp);
            ASSERT_LT(now, c.info.not_after) << "t=" << now << " served expired " << fp;
            ASSERT_TRUE(trusted.count(c.issuer)) << "t=" << now << " served " << fp << " from " << c.issuer
                                                 << ", untrusted";
        }
    }
    EXPECT_GE(ca_rotations, 10);
    EXPECT_GE(serving_rotations, 60);
}

}  // namespace
}  // namespace attune::core
