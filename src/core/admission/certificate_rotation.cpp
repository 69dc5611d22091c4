#include "attune/core/admission/certificate_rotation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attune::core {

namespace {

bool valid_at(const CertificateInfo& c, std::int64_t now) { return now < c.not_after; }

}  // namespace

std::int64_t renewal_due_at(const CertificateInfo& c, double renew_fraction) {
    const double lifetime = static_cast<double>(c.not_after - c.not_before);
    return c.not_after - static_cast<std::int64_t>(std::llround(std::max(0.0, lifetime) * renew_fraction));
}

CertificatePlan plan_certificates(const CertificateState& s, std::int64_t now, const RotationSettings& cfg) {
    CertificatePlan p;
    const bool ca_ok = s.ca && valid_at(*s.ca, now);
    const bool next_ok = s.next_ca && valid_at(*s.next_ca, now);

    // 1. Which CA signs from now on.
    if (!ca_ok) {
        if (next_ok) {
            // The CA lapsed before its successor's overlap ended (the
            // manager was down): the staged CA is at least already published.
            p.promote_next_ca = true;
            p.reasons.push_back("ca expired: next CA promoted early");
        } else {
            p.new_ca = true;
            p.reasons.push_back(s.ca ? "ca expired" : "bootstrap");
        }
    } else if (next_ok) {
        if (now - s.next_ca_staged_at >= cfg.ca_overlap.count()) {
            p.promote_next_ca = true;
            p.reasons.push_back("next CA published for the overlap: promoted");
        }
    } else if (now >= renewal_due_at(*s.ca, cfg.renew_fraction)) {
        p.stage_next_ca = true;
        p.reasons.push_back(s.next_ca ? "staged next CA expired: staged again" : "ca renewal due: next CA staged");
    }

    // 2. The serving certificate.
    if (p.new_ca || p.promote_next_ca) {
        p.issue_serving = true;
    } else if (!s.serving) {
        p.issue_serving = true;
        p.reasons.push_back("no serving certificate");
    } else if (!s.serving_signed_by_ca) {
        p.issue_serving = true;
        p.reasons.push_back("serving certificate not signed by the CA");
    } else if (!s.serving_covers_names) {
        p.issue_serving = true;
        p.reasons.push_back("serving certificate misses a wanted name");
    } else if (now >= renewal_due_at(*s.serving, cfg.renew_fraction)) {
        p.issue_serving = true;
        p.reasons.push_back("serving renewal due");
    }

    // 3. The bundle: every CA that may still sign a certificate in use.
    struct Entry {
        std::string id;
        std::int64_t not_after;
        bool pinned;  // the signing CA or the staged one: never dropped for the cap
    };
    std::vector<Entry> bundle;
    auto add = [&](const std::string& id, std::int64_t not_after, bool pinned) {
        for (auto& e : bundle)
            if (e.id == id) {
                e.pinned = e.pinned || pinned;
                return;
            }
        bundle.push_back({id, not_after, pinned});
    };
    for (const auto& c : s.bundle)
        if (valid_at(c, now)) add(c.fingerprint, c.not_after, false);
    const std::int64_t far = std::numeric_limits<std::int64_t>::max();
    if (ca_ok) add(s.ca->fingerprint, s.ca->not_after, !p.new_ca && !p.promote_next_ca);
    if (p.new_ca) add(kPlannedNewCa, far, true);
    if (next_ok) add(s.next_ca->fingerprint, s.next_ca->not_after, true);
    if (p.stage_next_ca) add(kPlannedNextCa, far, true);
    while (bundle.size() > cfg.max_bundle) {
        auto victim = std::min_element(bundle.begin(), bundle.end(), [](const Entry& a, const Entry& b) {
            if (a.pinned != b.pinned) return !a.pinned;  // unpinned first
            return a.not_after < b.not_after;
        });
        if (victim->pinned) break;
        bundle.erase(victim);
    }
    for (const auto& e : bundle) p.bundle.push_back(e.id);
    std::vector<std::string> before;
    for (const auto& c : s.bundle) before.push_back(c.fingerprint);
    p.bundle_changed = p.bundle != before;
    if (p.bundle_changed && p.reasons.empty()) p.reasons.push_back("bundle updated");

    // 4. When to look again.
    if (p.writes()) {
        p.next_review_at = now;
        return p;
    }
    std::int64_t next = far;
    next = std::min(next, renewal_due_at(*s.serving, cfg.renew_fraction));
    if (s.next_ca) next = std::min(next, s.next_ca_staged_at + static_cast<std::int64_t>(cfg.ca_overlap.count()));
    else next = std::min(next, renewal_due_at(*s.ca, cfg.renew_fraction));
    for (const auto& c : s.bundle) next = std::min(next, c.not_after);
    p.next_review_at = std::max(next, now);
    return p;
}

}  // namespace attune::core
