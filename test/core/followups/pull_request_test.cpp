#include "attune/core/followups/pull_request.hpp"

#include "attune/core/recommend/workload_baseline.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace attune::core {
namespace {
namespace json = boost::json;

Quantity q(const char* s) { return Quantity::parse(s).value(); }

Pod pod_template(const char* cpu, const char* memory) {
    std::string requests;
    if (*cpu) requests += std::string("\"cpu\":\"") + cpu + "\"";
    if (*memory) requests += std::string(requests.empty() ? "" : ",") + "\"memory\":\"" + memory + "\"";
    auto d = json::parse(R"({"kind":"Deployment","metadata":{"name":"web"},"spec":{"template":{"spec":{"containers":[)"
                         R"({"name":"app","resources":{"requests":{)" +
                         requests + R"(}}}]}}}})");
    return decode_pod_template("Deployment", d).value();
}

WorkloadRecommendation recommending(const char* cpu, const char* memory) {
    WorkloadRecommendation r;
    ContainerRecommendation c;
    c.name = "app";
    c.recommended.cpu_request = q(cpu);
    c.recommended.memory_request = q(memory);
    r.containers.push_back(c);
    ContainerRecommendation gone;
    gone.name = "sidecar-the-template-lost";
    gone.recommended.cpu_request = q("1");
    r.containers.push_back(gone);
    return r;
}

TEST(PullRequestDrift, CountsOnlyRequestsThatMovedByMinChangePercent) {
    struct Case {
        const char* what;
        const char *tpl_cpu, *tpl_mem, *rec_cpu, *rec_mem;
        int min;
        std::vector<std::pair<std::string, double>> want;  // resource, percent
    } cases[] = {
        {"both past 10%", "500m", "256Mi", "200m", "128Mi", 10, {{"cpu", 60}, {"memory", 50}}},
        {"exactly the threshold counts", "100m", "100Mi", "110m", "100Mi", 10, {{"cpu", 10}}},
        {"just under it does not", "100m", "100Mi", "109m", "100Mi", 10, {}},
        {"an increase counts like a decrease", "100m", "100Mi", "300m", "100Mi", 100, {{"cpu", 200}}},
        {"no template request is a 100% drift", "", "100Mi", "50m", "100Mi", 100, {{"cpu", 100}}},
        {"a zero recommendation is no drift", "100m", "100Mi", "0", "100Mi", 1, {}},
    };
    for (const auto& c : cases) {
        const auto got = request_drift("Deployment", "web", pod_template(c.tpl_cpu, c.tpl_mem),
                                       recommending(c.rec_cpu, c.rec_mem), c.min);
        ASSERT_EQ(got.size(), c.want.size()) << c.what;
        for (std::size_t i = 0; i < got.size(); ++i) {
            EXPECT_EQ(got[i].resource, c.want[i].first) << c.what;
            EXPECT_NEAR(got[i].change_percent, c.want[i].second, 1e-6) << c.what;
            EXPECT_EQ(got[i].container, "app") << c.what;
        }
    }
}

TEST(PullRequestDrift, FingerprintFollowsValuesNotPercentages) {
    auto a = request_drift("Deployment", "web", pod_template("500m", "256Mi"), recommending("200m", "128Mi"), 10);
    auto b = a;
    b[0].change_percent = 1;
    EXPECT_EQ(drift_fingerprint(a), drift_fingerprint(b));
    EXPECT_EQ(drift_fingerprint(a).size(), 16u);
    b[0].recommended = q("210m");
    EXPECT_NE(drift_fingerprint(a), drift_fingerprint(b));
    auto c = request_drift("Deployment", "web", pod_template("400m", "256Mi"), recommending("200m", "128Mi"), 10);
    EXPECT_NE(drift_fingerprint(a), drift_fingerprint(c)) << "a template change is a new drift";
}

TEST(PullRequestText, BranchIsStablePerPolicyAndSafe) {
    EXPECT_EQ(pull_request_branch("shop", "web"), "attune/recommendations-shop-web");
    EXPECT_EQ(pull_request_branch("shop", "a.b_c"), "attune/recommendations-shop-a-b-c");
}

TEST(PullRequestText, BodyTabulatesEveryDriftAndFile) {
    auto d = request_drift("Deployment", "web", pod_template("500m", ""), recommending("200m", "128Mi"), 10);
    const auto body = pull_request_body("shop", "web", d, {"apps/web.yaml"});
    EXPECT_NE(body.find("| web | Deployment | app | cpu | 500m | 200m | 60.0% |"), std::string::npos) << body;
    EXPECT_NE(body.find("| web | Deployment | app | memory | none | 128Mi | 100.0% |"), std::string::npos) << body;
    EXPECT_NE(body.find("- `apps/web.yaml`"), std::string::npos) << body;
    EXPECT_NE(body.find("`shop/web`"), std::string::npos) << body;
}

TEST(PullRequestText, ManifestPathFromTheAnnotationOrExportsName) {
    struct Case {
        const char *what, *tmpl, *want, *error;
    } cases[] = {
        {"default: export's file name", "", "shop_deployment_web.yaml", nullptr},
        {"placeholders", "apps/{namespace}/{kind}-{name}.yaml", "apps/shop/deployment-web.yaml", nullptr},
        {"repeated placeholder", "{name}/{name}.json", "web/web.json", nullptr},
        {"absolute", "/etc/{name}.yaml", nullptr, "relative"},
        {"parent directory", "apps/../{name}.yaml", nullptr, "segment"},
        {"a directory", "apps/", nullptr, "names no file"},
    };
    for (const auto& c : cases) {
        auto got = manifest_path(c.tmpl, "shop", "Deployment", "web");
        if (c.want) {
            ASSERT_TRUE(got) << c.what << ": " << got.error().message;
            EXPECT_EQ(got.value(), c.want) << c.what;
        } else {
            ASSERT_FALSE(got) << c.what;
            EXPECT_NE(got.error().message.find(c.error), std::string::npos) << c.what << ": " << got.error().message;
        }
    }
}

TEST(PullRequestAddress, PrivateRangesNeedAllowPrivateEndpoints) {
    struct Case {
        const char* ip;
        bool loopback, private_ok, allowed;
    } cases[] = {
        {"140.82.112.6", false, false, true}, {"10.1.2.3", false, false, false},  {"10.1.2.3", false, true, true},
        {"172.20.0.1", false, false, false},  {"172.32.0.1", false, false, true}, {"192.168.1.1", false, false, false},
        {"100.64.0.1", false, false, false},  {"fd00::1", false, false, false},   {"fd00::1", false, true, true},
        {"::ffff:10.0.0.1", false, false, false}, {"127.0.0.1", false, true, false}, {"127.0.0.1", true, false, true},
        {"169.254.169.254", true, true, false},
    };
    for (const auto& c : cases)
        EXPECT_EQ(check_forge_address(c.ip, c.loopback, c.private_ok).empty(), c.allowed)
            << c.ip << " loopback=" << c.loopback << " private=" << c.private_ok;
}

TEST(PullRequestRecord, StatusFirstThenTheGoAnnotations) {
    auto p = json::parse(R"({"metadata":{"annotations":{"attune.io/gitops-pr-last-attempt":"2026-12-01T10:00:00Z",
        "attune.io/gitops-pr-url":"https://x/pull/1"}}})");
    auto r = pull_request_record_from(p);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->url, "https://x/pull/1");
    EXPECT_EQ(format_timestamp(*r->last_attempt), "2026-12-01T10:00:00Z");
    EXPECT_EQ(r->drift_fingerprint, "");
    auto s = json::parse(R"({"status":{"gitopsPR":{"driftFingerprint":"ab","lastAttempt":"2026-12-02T10:00:00Z",
        "url":"https://x/pull/2"}}})");
    EXPECT_EQ(json::value(pull_request_record_json(*pull_request_record_from(s))),
              json::parse(R"({"driftFingerprint":"ab","lastAttempt":"2026-12-02T10:00:00Z","url":"https://x/pull/2"})"));
    EXPECT_FALSE(pull_request_record_from(json::parse(R"({"metadata":{}})")));
}

Timestamp at(const char* t) { return parse_timestamp(t).value(); }

TEST(PullRequestDecision, StepsInOrder) {
    EffectivePullRequest on;
    on.enabled = true;
    on.repository = "org/repo";
    EffectivePullRequest off = on;
    off.enabled = false;
    EffectivePullRequest dry = on;
    dry.dry_run = true;
    const auto drifts = request_drift("Deployment", "web", pod_template("500m", "256Mi"), recommending("200m", "128Mi"), 10);
    const auto fp = drift_fingerprint(drifts);
    const auto now = at("2026-12-07T12:00:00Z");
    const PullRequestRecord recent{fp, at("2026-12-07T11:00:00Z"), "https://x/pull/1"};
    const PullRequestRecord recent_other{"other", at("2026-12-07T11:00:00Z"), ""};
    const PullRequestRecord old_other{"other", at("2026-12-05T11:00:00Z"), "https://x/pull/1"};
    const PullRequestRecord failed_long_ago{fp, at("2026-12-05T11:00:00Z"), ""};
    const Condition open{"GitOpsPullRequest", "True", "PullRequestOpen", "Opened pull request https://x/pull/1", {}, 3};
    const Condition failed{"GitOpsPullRequest", "False", "PullRequestFailed", "failed: 500", {}, 3};
    const Condition dry_cond{"GitOpsPullRequest", "True", "PullRequestDryRun", "Dry run", {}, 3};
    struct Case {
        const char* what;
        const EffectivePullRequest* settings;
        UpdateMode mode;
        bool drift;
        std::optional<PullRequestRecord> last;
        const Condition* current;
        PullRequestStep step;
        const char* reason;  // of the condition reported
    } cases[] = {
        {"not set", nullptr, UpdateMode::Recommend, true, {}, nullptr, PullRequestStep::Clear, nullptr},
        {"Observe", &on, UpdateMode::Observe, true, {}, nullptr, PullRequestStep::Clear, nullptr},
        {"disabled", &off, UpdateMode::Auto, true, {}, nullptr, PullRequestStep::Report, "PullRequestDisabled"},
        {"no drift", &on, UpdateMode::Recommend, false, {}, nullptr, PullRequestStep::Report, "NoDrift"},
        {"first time", &on, UpdateMode::Recommend, true, {}, nullptr, PullRequestStep::Send, nullptr},
        {"dry run", &dry, UpdateMode::Recommend, true, {}, nullptr, PullRequestStep::DryRun, nullptr},
        {"the same drift, opened: kept", &on, UpdateMode::Recommend, true, recent, &open, PullRequestStep::Report,
         "PullRequestOpen"},
        {"the same drift, failed within the cooldown: the failure stays", &on, UpdateMode::Recommend, true,
         PullRequestRecord{fp, at("2026-12-07T11:00:00Z"), ""}, &failed, PullRequestStep::Report, "PullRequestFailed"},
        {"the same drift, failed long ago: tried again", &on, UpdateMode::Recommend, true, failed_long_ago, &failed,
         PullRequestStep::Send, nullptr},
        {"a new drift within the cooldown", &on, UpdateMode::Recommend, true, recent_other, &open,
         PullRequestStep::Report, "PullRequestCooldown"},
        {"a new drift after the cooldown", &on, UpdateMode::Recommend, true, old_other, &open, PullRequestStep::Send,
         nullptr},
        {"after a restart, the recorded pull request", &on, UpdateMode::Recommend, true, recent, nullptr,
         PullRequestStep::Report, "PullRequestOpen"},
        {"dry run turned off: the cooldown, not the dry run, is reported", &on, UpdateMode::Recommend, true,
         PullRequestRecord{fp, at("2026-12-07T11:00:00Z"), ""}, &dry_cond, PullRequestStep::Report,
         "PullRequestCooldown"},
    };
    for (const auto& c : cases) {
        PullRequestInputs in;
        in.settings = c.settings;
        in.mode = c.mode;
        if (c.drift) in.drifts = drifts;
        in.last = c.last;
        in.current = c.current;
        in.now = now;
        in.generation = 3;
        const auto d = decide_pull_request(in);
        EXPECT_EQ(d.step, c.step) << c.what;
        if (c.reason) {
            ASSERT_TRUE(d.condition) << c.what;
            EXPECT_EQ(d.condition->reason, c.reason) << c.what;
            EXPECT_EQ(d.condition->type, "GitOpsPullRequest") << c.what;
        } else {
            EXPECT_FALSE(d.condition) << c.what;
        }
    }
}

TEST(PullRequestOutcome, EachEndSetsConditionMetricEventAndRecord) {
    EffectivePullRequest s;
    s.enabled = true;
    s.repository = "org/repo";
    PullRequestAttempt a{&s, "attune/recommendations-shop-web", {"a.yaml"}, 2, "fp", std::nullopt,
                         at("2026-12-07T12:00:00Z"), 4};
    auto dry = dry_run_outcome(a);
    EXPECT_EQ(dry.condition.reason, "PullRequestDryRun");
    EXPECT_EQ(dry.condition.status, "True");
    EXPECT_EQ(dry.metric_result, "dry_run");
    EXPECT_NE(dry.condition.message.find("org/repo from attune/recommendations-shop-web into main"), std::string::npos)
        << dry.condition.message;
    EXPECT_EQ(dry.record, (PullRequestRecord{"fp", at("2026-12-07T12:00:00Z"), ""}));
    auto sent = sent_outcome(a, "https://x/pull/7", false);
    EXPECT_EQ(sent.condition.reason, "PullRequestOpen");
    EXPECT_EQ(sent.metric_result, "created");
    EXPECT_EQ(sent.record.url, "https://x/pull/7");
    EXPECT_EQ(sent.event.type, "Normal");
    EXPECT_EQ(sent_outcome(a, "https://x/pull/7", true).metric_result, "updated");
    a.last = PullRequestRecord{"old", at("2026-12-01T12:00:00Z"), "https://x/pull/6"};
    auto bad = failed_outcome(a, "github: open the pull request (POST /repos/org/repo/pulls) answered 422");
    EXPECT_EQ(bad.condition.status, "False");
    EXPECT_EQ(bad.condition.reason, "PullRequestFailed");
    EXPECT_EQ(bad.event.type, "Warning");
    EXPECT_TRUE(bad.event.dedupe);
    EXPECT_EQ(bad.metric_result, "failed");
    EXPECT_EQ(bad.record.url, "https://x/pull/6") << "a failure keeps the last pull request's page";
    EXPECT_EQ(bad.record.drift_fingerprint, "fp");
}

}  // namespace
}  // namespace attune::core
