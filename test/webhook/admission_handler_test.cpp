// The admission handler over filled informer caches: routing, HTTP errors,
// the cache lookups (namespace gate, owner chain, policy selection) and the
// answers, decoded the way the apiserver applies them.
#include <attune/core/util/base64.hpp>
#include <attune/core/util/json_patch.hpp>
#include <attune/policy/cache_views.hpp>
#include <attune/webhook/admission_handler.hpp>
#include <attune/webhook/policy_review.hpp>

#include <boost/json.hpp>

#include <prometheus/text_serializer.h>

#include <gtest/gtest.h>

namespace attune::webhook {
namespace {
namespace json = boost::json;

kube::ObjectCache cache() { return kube::ObjectCache(kube::strip_generic); }

// Every write a new resourceVersion, as the apiserver does (the cache drops
// an event carrying the version it already holds).
void add(kube::ObjectCache& c, const std::string& text) {
    static int rv = 1000;
    auto obj = json::parse(text);
    obj.as_object()["metadata"].as_object()["resourceVersion"] = std::to_string(++rv);
    c.apply(kube::WatchEventType::Modified, std::move(obj));
}

constexpr const char* kEnabledNamespace =
    R"({"metadata":{"name":"shop","labels":{"attune.io/initial-sizing":"enabled"}}})";

std::string policy(const std::string& name, int weight = 100, const std::string& cpu = "{}",
                   const std::string& status = "") {
    return R"({"apiVersion":"attune.io/v1alpha1","kind":"AttunePolicy",
      "metadata":{"name":")" + name + R"(","namespace":"shop","uid":"u-)" + name + R"(","resourceVersion":"1"},
      "spec":{"targetRef":{"kind":"Deployment","name":"web"},"weight":)" + std::to_string(weight) + R"(,
              "metricsSource":{"prometheus":{"address":"http://prometheus.monitoring:9090"}},
              "cpu":)" + cpu + R"(,"memory":{},
              "updateStrategy":{"type":"Auto","initialSizing":true}},
      "status":)" + (status.empty() ? std::string(R"({"recommendations":[{"workload":"web","kind":"Deployment","stale":false,
        "containers":[{"name":"app","confidence":0.9,"dataPoints":96,"lastUpdated":"2026-12-01T10:00:00Z",
          "current":{"cpuRequest":"1","cpuLimit":"0","memoryRequest":"512Mi","memoryLimit":"0"},
          "recommended":{"cpuRequest":"250m","cpuLimit":"0","memoryRequest":"192Mi","memoryLimit":"0"}}]}]})")
                                          : status) + "}";
}

constexpr const char* kDeployment = R"({"apiVersion":"apps/v1","kind":"Deployment",
  "metadata":{"name":"web","namespace":"shop","uid":"d1","labels":{"app":"web"}},
  "spec":{"replicas":0,"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"app",
    "resources":{"requests":{"cpu":"1","memory":"512Mi"}}}]}}}})";

constexpr const char* kReplicaSet = R"({"apiVersion":"apps/v1","kind":"ReplicaSet",
  "metadata":{"name":"web-7d9f","namespace":"shop","uid":"r1",
    "ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"d1","controller":true}]}})";

std::string pod_review(const std::string& ns = "shop", const std::string& annotations = "{}") {
    return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
      "uid":"rev-1","kind":{"group":"","version":"v1","kind":"Pod"},
      "resource":{"group":"","version":"v1","resource":"pods"},"namespace":")" + ns + R"(","operation":"CREATE",
      "object":{"metadata":{"generateName":"web-7d9f-","namespace":")" + ns + R"(","annotations":)" + annotations + R"(,
        "labels":{"app":"web","pod-template-hash":"7d9f"},
        "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d9f","uid":"r1","controller":true}]},
       "spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"1","memory":"512Mi"}}}]}}}})";
}

struct HandlerTest : ::testing::Test {
    kube::ObjectCache namespaces = cache(), deployments = cache(), statefulsets = cache(), daemonsets = cache(),
                      replicasets = cache(), jobs = cache(), cronjobs = cache();
    // Compact text, as the manager holds it: every read parses a new object.
    kube::ObjectCache policies{kube::strip_generic, kube::CacheStorage::CompactText};
    kube::ObjectCache cluster_defaults{kube::strip_generic, kube::CacheStorage::CompactText};
    kube::ObjectCache namespace_defaults{kube::strip_generic, kube::CacheStorage::CompactText};
    bool synced = true;
    core::Capabilities caps;
    std::shared_ptr<WebhookMetrics> metrics = WebhookMetrics::standalone();
    std::unique_ptr<AdmissionHandler> handler;

    HandlerTest() {
        caps.pod_level_resources_field = true;
        policy::index_policies(policies);  // as the manager's informer catalog sets them up
        policy::index_defaults(cluster_defaults);
        policy::index_defaults(namespace_defaults);
        add(namespaces, kEnabledNamespace);
        add(deployments, kDeployment);
        add(replicasets, kReplicaSet);
        add(policies, policy("web"));
        AdmissionCaches c;
        c.namespaces = &namespaces;
        c.views.policies = &policies;
        c.views.cluster_defaults = &cluster_defaults;
        c.views.namespace_defaults = &namespace_defaults;
        c.views.deployments = &deployments;
        c.views.statefulsets = &statefulsets;
        c.views.daemonsets = &daemonsets;
        c.views.replicasets = &replicasets;
        c.views.jobs = &jobs;
        c.views.cronjobs = &cronjobs;
        c.views.synced = [this](std::string_view) { return synced; };
        caches = c;
        make_handler({});
    }

    AdmissionCaches caches;
    // A new handler (an empty memo) with these validation options and scope.
    void make_handler(core::PolicyValidationOptions validation, kube::WatchScope scope = kube::WatchScope()) {
        AdmissionOptions o;
        o.operator_namespace = "attune-system";
        o.now = [] { return std::string("2026-12-01T10:00:00Z"); };
        o.validation = validation;
        o.watch_scope = std::move(scope);
        handler = std::make_unique<AdmissionHandler>(caches, o, &caps, *metrics);
    }
    void rebuild(kube::WatchScope scope) { make_handler({}, std::move(scope)); }

    http::ServerReply post(std::string_view path, const std::string& body) {
        http::ServerRequest r;
        r.method = "POST";
        r.target = path;
        r.content_type = "application/json";
        r.body = body;
        return handler->handle(r);
    }

    // The object after the response's patch, as the apiserver would store it.
    json::value admitted(const std::string& review, std::string_view path = kPodCreatePath) {
        auto reply = post(path, review);
        EXPECT_EQ(reply.status, 200u) << reply.body;
        const auto resp = json::parse(reply.body).at("response");
        EXPECT_EQ(resp.at("uid"), "rev-1");
        EXPECT_EQ(resp.at("allowed"), true);
        json::value obj = json::parse(review).at("request").at("object");
        if (const auto* p = resp.as_object().if_contains("patch")) {
            EXPECT_EQ(resp.at("patchType"), "JSONPatch");
            auto patched = core::apply_json_patch(obj, json::parse(*core::base64_decode(p->as_string())).as_array());
            EXPECT_TRUE(patched.ok());
            if (patched.ok()) obj = patched.value();
        }
        return obj;
    }

    std::string metric(const std::string& needle) const { return counter(metrics->skips, needle); }
    // The first series of `family` whose labels ("a=x,b=y,", sorted by name)
    // contain `needle`: its counter value, or the histogram's sample count.
    // The registry is private to the standalone metrics; read a family directly.
    template <class Family>
    static std::string counter(Family& family, const std::string& needle) {
        for (const auto& f : family.Collect())
            for (const auto& m : f.metric) {
                std::string labels;
                for (const auto& l : m.label) labels += l.name + "=" + l.value + ",";
                if (labels.find(needle) != std::string::npos)
                    return std::to_string(f.type == prometheus::MetricType::Histogram
                                              ? static_cast<long long>(m.histogram.sample_count)
                                              : static_cast<long long>(m.counter.value));
            }
        return "0";
    }
};

std::string cpu_of(const json::value& pod) {
    return std::string(pod.at("spec").at("containers").at(0).at("resources").at("requests").at("cpu").as_string());
}
bool sized(const json::value& pod) {
    const auto* a = pod.at("metadata").as_object().if_contains("annotations");
    return a && a->as_object().contains("attune.io/initial-sizing");
}

TEST_F(HandlerTest, APodOfADeploymentWithARecommendationIsBornAtTheRecommendedSize) {
    const auto pod = admitted(pod_review());
    EXPECT_EQ(cpu_of(pod), "250m");
    EXPECT_EQ(pod.at("spec").at("containers").at(0).at("resources").at("requests").at("memory"), "192Mi");
    EXPECT_EQ(pod.at("metadata").at("annotations").at("attune.io/initial-sizing"), "applied");
    EXPECT_EQ(pod.at("metadata").at("annotations").at("attune.io/initial-sizing-policy"), "shop/web");
}

TEST_F(HandlerTest, AReplicaSetNotYetCachedIsFoundThroughThePodTemplateHash) {
    replicasets.apply(kube::WatchEventType::Deleted, json::parse(kReplicaSet));
    EXPECT_EQ(cpu_of(admitted(pod_review())), "250m");
}

TEST_F(HandlerTest, TheNamespaceGateFailsClosed) {
    EXPECT_FALSE(sized(admitted(pod_review("elsewhere"))));  // not in the cache: cannot tell
    EXPECT_EQ(metric("reason=namespace_unknown"), "1");
    synced = false;
    EXPECT_FALSE(sized(admitted(pod_review())));  // the cache has not listed yet
    EXPECT_EQ(metric("reason=namespace_unknown"), "2");
    synced = true;
    add(namespaces, R"({"metadata":{"name":"shop","labels":{"attune.io/initial-sizing":"enabled"},
                        "annotations":{"attune.io/freeze":"true"}}})");
    EXPECT_FALSE(sized(admitted(pod_review())));
    EXPECT_EQ(metric("reason=namespace_frozen"), "1");
}

TEST_F(HandlerTest, SkippedPodsAndOperatorPods) {
    EXPECT_FALSE(sized(admitted(pod_review("shop", R"({"attune.io/skip":"true"})"))));
    EXPECT_FALSE(sized(admitted(pod_review("attune-system"))));
    EXPECT_FALSE(sized(admitted(pod_review("kube-system"))));
    EXPECT_EQ(metric("reason=opted_out"), "1");
    EXPECT_EQ(metric("reason=operator_namespace"), "1");
    EXPECT_EQ(metric("reason=kube_system"), "1");
}

TEST_F(HandlerTest, TheHigherWeightPolicyManagesTheWorkload) {
    add(policies, policy("heavy", 500, "{}", R"({"recommendations":[{"workload":"web","kind":"Deployment","stale":false,
        "containers":[{"name":"app","confidence":0.9,"dataPoints":96,"lastUpdated":"2026-12-01T10:00:00Z",
          "current":{"cpuRequest":"1","cpuLimit":"0","memoryRequest":"512Mi","memoryLimit":"0"},
          "recommended":{"cpuRequest":"300m","cpuLimit":"0","memoryRequest":"192Mi","memoryLimit":"0"}}]}]})"));
    const auto pod = admitted(pod_review());
    EXPECT_EQ(cpu_of(pod), "300m");
    EXPECT_EQ(pod.at("metadata").at("annotations").at("attune.io/initial-sizing-policy"), "shop/heavy");
}

TEST_F(HandlerTest, AWorkloadThatOptedOutIsLeftAlone) {
    add(deployments, R"({"metadata":{"name":"web","namespace":"shop","uid":"d1","labels":{"app":"web"},
                         "annotations":{"attune.io/skip":"true"}},"spec":{}})");
    EXPECT_FALSE(sized(admitted(pod_review())));
    EXPECT_EQ(metric("reason=workload_opted_out"), "1");
}

TEST_F(HandlerTest, APolicyChangeIsSeenOnTheNextReview) {
    EXPECT_EQ(cpu_of(admitted(pod_review())), "250m");
    add(policies, R"({"metadata":{"name":"web","namespace":"shop","resourceVersion":"2"},
      "spec":{"targetRef":{"kind":"Deployment","name":"web"},"updateStrategy":{"initialSizing":false}}})");
    EXPECT_FALSE(sized(admitted(pod_review())));
    EXPECT_EQ(metric("reason=initial_sizing_disabled"), "1");
}

TEST_F(HandlerTest, ANewRecommendationInThePolicyStatusIsSeenOnTheNextReview) {
    EXPECT_EQ(cpu_of(admitted(pod_review())), "250m");
    EXPECT_EQ(cpu_of(admitted(pod_review())), "250m");
    add(policies, policy("web", 100, "{}", R"({"recommendations":[{"workload":"web","kind":"Deployment","stale":false,
        "containers":[{"name":"app","confidence":0.9,"dataPoints":96,"lastUpdated":"2026-12-01T11:00:00Z",
          "current":{"cpuRequest":"1","cpuLimit":"0","memoryRequest":"512Mi","memoryLimit":"0"},
          "recommended":{"cpuRequest":"400m","cpuLimit":"0","memoryRequest":"192Mi","memoryLimit":"0"}}]}]})"));
    EXPECT_EQ(cpu_of(admitted(pod_review())), "400m");
}

TEST_F(HandlerTest, StartupBoostIsCounted) {
    add(policies, policy("web", 100, R"({"startupBoost":{"multiplier":"2","duration":"2m"}})"));
    const auto pod = admitted(pod_review());
    EXPECT_EQ(cpu_of(pod), "500m");
    EXPECT_EQ(pod.at("metadata").at("annotations").at("attune.io/startup-boost-at"), "2026-12-01T10:00:00Z");
    double boosts = 0;
    for (const auto& f : metrics->startup_boosts.Collect())
        for (const auto& m : f.metric) {
            boosts += m.counter.value;
            std::string labels;  // by policy: no label per workload
            for (const auto& l : m.label) labels += l.name + "=" + l.value + ",";
            EXPECT_EQ(labels, "action=applied,namespace=shop,policy=web,");
        }
    EXPECT_EQ(boosts, 1);
}

std::string defaults(const std::string& kind, const std::string& name, const std::string& spec) {
    const bool cluster = kind == "AttuneDefaults";
    return R"({"apiVersion":"attune.io/v1alpha1","kind":")" + kind + R"(","metadata":{"name":")" + name + R"(")" +
           (cluster ? std::string() : std::string(R"(,"namespace":"shop")")) + R"(,"uid":"u-)" + name +
           R"("},"spec":)" + spec + "}";
}
std::string boost_defaults(const std::string& kind, const std::string& multiplier) {
    return defaults(kind, "base", R"({"cpu":{"startupBoost":{"multiplier":")" + multiplier + R"(","duration":"2m"}}})");
}

// The policy sets no startup boost; the tiers do, and each change to them is
// seen on the very next review (the caches are compact text: every read
// parses a new object, so only the decoded views say what changed).
TEST_F(HandlerTest, TheDefaultsTiersDecideWhatThePolicyLeavesUnsetAndTheirChangesAreSeenAtOnce) {
    EXPECT_EQ(cpu_of(admitted(pod_review())), "250m");
    add(cluster_defaults, boost_defaults("AttuneDefaults", "2"));
    const auto boosted = admitted(pod_review());
    EXPECT_EQ(cpu_of(boosted), "500m");
    EXPECT_EQ(boosted.at("metadata").at("annotations").at("attune.io/startup-boost-at"), "2026-12-01T10:00:00Z");
    EXPECT_EQ(cpu_of(admitted(pod_review())), "500m");
    add(cluster_defaults, boost_defaults("AttuneDefaults", "3"));
    EXPECT_EQ(cpu_of(admitted(pod_review())), "750m");
    // The namespace tier outranks the cluster tier.
    add(namespace_defaults, boost_defaults("AttuneNamespaceDefaults", "4"));
    EXPECT_EQ(cpu_of(admitted(pod_review())), "1");
    add(namespace_defaults, defaults("AttuneNamespaceDefaults", "base", R"({"updateStrategy":{"initialSizing":false}})"));
    EXPECT_EQ(cpu_of(admitted(pod_review())), "750m");  // initialSizing stays the policy's own true
    namespace_defaults.apply(kube::WatchEventType::Deleted,
                             json::parse(defaults("AttuneNamespaceDefaults", "base", "{}")));
    cluster_defaults.apply(kube::WatchEventType::Deleted, json::parse(defaults("AttuneDefaults", "base", "{}")));
    const auto plain = admitted(pod_review());
    EXPECT_EQ(cpu_of(plain), "250m");
    EXPECT_FALSE(plain.at("metadata").at("annotations").as_object().contains("attune.io/startup-boost-at"));
}

TEST_F(HandlerTest, DefaultsInitialSizingIsHonouredWhenThePolicyLeavesItUnset) {
    add(policies, R"({"metadata":{"name":"web","namespace":"shop","resourceVersion":"2"},
      "spec":{"targetRef":{"kind":"Deployment","name":"web"},"updateStrategy":{"type":"Auto"}},
      "status":{"recommendations":[{"workload":"web","kind":"Deployment","stale":false,
        "containers":[{"name":"app","confidence":0.9,"dataPoints":96,"lastUpdated":"2026-12-01T10:00:00Z",
          "current":{"cpuRequest":"1","cpuLimit":"0","memoryRequest":"512Mi","memoryLimit":"0"},
          "recommended":{"cpuRequest":"250m","cpuLimit":"0","memoryRequest":"192Mi","memoryLimit":"0"}}]}]}})");
    EXPECT_FALSE(sized(admitted(pod_review())));
    EXPECT_EQ(metric("reason=initial_sizing_disabled"), "1");
    add(namespace_defaults, defaults("AttuneNamespaceDefaults", "team", R"({"updateStrategy":{"initialSizing":true}})"));
    EXPECT_EQ(cpu_of(admitted(pod_review())), "250m");
}

TEST_F(HandlerTest, AnotherNamespacesDefaultsDoNotApply) {
    add(namespace_defaults, R"({"apiVersion":"attune.io/v1alpha1","kind":"AttuneNamespaceDefaults",
      "metadata":{"name":"base","namespace":"elsewhere"},
      "spec":{"cpu":{"startupBoost":{"multiplier":"2","duration":"2m"}}}})");
    EXPECT_EQ(cpu_of(admitted(pod_review())), "250m");
}

// The controller reports such a policy InvalidConfig and does not act on
// it; neither does the webhook, until the object is fixed.
TEST_F(HandlerTest, AnUndecodableDefaultsObjectLeavesThePolicysPodsUnsized) {
    add(cluster_defaults, defaults("AttuneDefaults", "broken", R"({"cpu":{"overhead":"lots"}})"));
    EXPECT_FALSE(sized(admitted(pod_review())));
    EXPECT_EQ(metric("reason=invalid_policy"), "1");
    add(cluster_defaults, defaults("AttuneDefaults", "broken", R"({"cpu":{"overhead":"20"}})"));
    EXPECT_EQ(cpu_of(admitted(pod_review())), "250m");
}

// The webhook runs the controller's core::validate_effective_policy on the
// merged policy with the manager's options: a policy the controller reports
// Ready=False InvalidConfig sizes no pod (allowed unchanged, skip reason
// policy_validation_failed), and the same policy passes where the options allow it.
std::string policy_with_spec(const std::string& spec_fields) {
    return R"({"apiVersion":"attune.io/v1alpha1","kind":"AttunePolicy",
      "metadata":{"name":"web","namespace":"shop","uid":"u-web","resourceVersion":"1"},
      "spec":{"targetRef":{"kind":"Deployment","name":"web"},"updateStrategy":{"type":"Auto","initialSizing":true},)" +
           spec_fields + R"(},
      "status":{"recommendations":[{"workload":"web","kind":"Deployment","stale":false,
        "containers":[{"name":"app","confidence":0.9,"dataPoints":96,"lastUpdated":"2026-12-01T10:00:00Z",
          "current":{"cpuRequest":"1","cpuLimit":"0","memoryRequest":"512Mi","memoryLimit":"0"},
          "recommended":{"cpuRequest":"250m","cpuLimit":"0","memoryRequest":"192Mi","memoryLimit":"0"}}]}]}})";
}

TEST_F(HandlerTest, APolicyTheControllerRejectsSizesNoPod) {
    const std::string prom = R"("metricsSource":{"prometheus":{"address":"http://prometheus.monitoring:9090"}})";
    struct Row {
        const char* name;
        std::string spec;              // policy spec fields besides targetRef/updateStrategy
        std::string cluster_defaults;  // AttuneDefaults spec, "" : none
        bool allow_local, allow_secrets;
        bool sized;
    };
    const Row rows[] = {
        {"a valid policy is applied", prom, "", false, false, true},
        {"a loopback address is refused", R"("metricsSource":{"prometheus":{"address":"http://127.0.0.1:9090"}})", "",
         false, false, false},
        {"a loopback address with --allow-local-metrics-addresses",
         R"("metricsSource":{"prometheus":{"address":"http://127.0.0.1:9090"}})", "", true, false, true},
        {"a cloud metadata address is refused even when local ones are allowed",
         R"("metricsSource":{"prometheus":{"address":"http://169.254.169.254/"}})", "", true, true, false},
        {"the defaults tier's loopback address is judged after the merge", R"("cpu":{})",
         R"({"metricsSource":{"prometheus":{"address":"http://localhost:9090"}}})", false, false, false},
        {"a bearerTokenSecret without --allow-secret-reads",
         R"("metricsSource":{"prometheus":{"address":"http://prom:9090","bearerTokenSecret":{"name":"p","key":"t"}}})",
         "", false, false, false},
        {"a bearerTokenSecret with --allow-secret-reads",
         R"("metricsSource":{"prometheus":{"address":"https://prom:9090","bearerTokenSecret":{"name":"p","key":"t"}}})",
         "", false, true, true},
        {"a bearerTokenSecret over plain http without the plaintext opt-in",
         R"("metricsSource":{"prometheus":{"address":"http://prom:9090","bearerTokenSecret":{"name":"p","key":"t"}}})",
         "", false, true, false},
        {"a containerPolicies entry with minAllowed over the inherited maxAllowed",
         prom + R"(,"cpu":{"maxAllowed":"1"},"containerPolicies":[{"containerName":"app","cpu":{"minAllowed":"2"}}])",
         "", false, false, false},
    };
    const std::string base = R"({"apiVersion":"attune.io/v1alpha1","kind":"AttuneDefaults","metadata":{"name":"base"},"spec":)";
    for (const auto& r : rows) {
        SCOPED_TRACE(r.name);
        add(policies, policy_with_spec(r.spec));
        if (r.cluster_defaults.empty())
            cluster_defaults.apply(kube::WatchEventType::Deleted, json::parse(base + "{}}"));
        else add(cluster_defaults, base + r.cluster_defaults + "}");
        core::PolicyValidationOptions v;
        v.allow_local_metrics_addresses = r.allow_local;
        v.allow_secret_reads = r.allow_secrets;
        make_handler(v);
        const std::string before = metric("reason=policy_validation_failed");
        EXPECT_EQ(sized(admitted(pod_review())), r.sized);
        EXPECT_EQ(std::stoi(metric("reason=policy_validation_failed")) - std::stoi(before), r.sized ? 0 : 1);
    }
}

TEST_F(HandlerTest, HttpErrorsAreClear) {
    http::ServerRequest get;
    get.method = "GET";
    get.target = kPodCreatePath;
    EXPECT_EQ(handler->handle(get).status, 405u);
    EXPECT_EQ(post("/nope", pod_review()).status, 404u);
    const auto bad = post(kPodCreatePath, R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})");
    EXPECT_EQ(bad.status, 400u);
    EXPECT_NE(bad.body.find("invalid AdmissionReview: AdmissionReview has no request"), std::string::npos) << bad.body;
    EXPECT_EQ(post(kPodCreatePath, "{not json").status, 400u);
}

TEST_F(HandlerTest, AnUndecodablePodIsAllowedWithAWarning) {
    std::string review = pod_review();
    review.replace(review.find(R"("cpu":"1")"), 9, R"("cpu":"lots")");
    const auto reply = post(kPodCreatePath, review);
    ASSERT_EQ(reply.status, 200u);
    const auto resp = json::parse(reply.body).at("response");
    EXPECT_EQ(resp.at("allowed"), true);
    EXPECT_FALSE(resp.as_object().contains("patch"));
    EXPECT_NE(std::string(resp.at("warnings").at(0).as_string()).find("attune: pod not sized"), std::string::npos);
}

std::string update_review(const std::string& old_env, const std::string& new_env, const std::string& new_labels) {
    auto dep = [](const std::string& env, const std::string& labels) {
        return R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop","labels":)" +
               labels + R"(},"spec":{"replicas":2,"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[
                 {"name":"app","env":)" + env + R"(,"resources":{"requests":{"cpu":"1","memory":"512Mi"}}}]}}}})";
    };
    return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
      "uid":"rev-1","kind":{"group":"apps","version":"v1","kind":"Deployment"},
      "resource":{"group":"apps","version":"v1","resource":"deployments"},"namespace":"shop","name":"web",
      "operation":"UPDATE","object":)" + dep(new_env, new_labels) + R"(,"oldObject":)" + dep(old_env, R"({"app":"web"})") +
           "}}";
}

constexpr const char* kAwaitingStatus = R"({"lifecycle":{"workloads":[{"workload":"web","kind":"Deployment",
  "phase":"ValidatedAwaitingPersistence","currentRevision":"rev-abc","validatedRevision":"rev-abc","step":2,
  "baseline":{"containers":[{"name":"app","resources":{"requests":{"cpu":"1","memory":"512Mi"}}}]},
  "candidate":{"containers":[{"name":"app","resources":{"requests":{"cpu":"200m","memory":"192Mi"}}}]}}]}})";

TEST_F(HandlerTest, ATemplateChangingUpdateGetsTheValidatedCandidate) {
    add(policies, policy("web", 100, "{}", kAwaitingStatus));
    const auto dep = admitted(update_review("[]", R"([{"name":"A","value":"1"}])", R"({"app":"web"})"), kWorkloadUpdatePath);
    const auto& res = dep.at("spec").at("template").at("spec").at("containers").at(0).at("resources");
    EXPECT_EQ(res.at("requests").at("cpu"), "200m");
    EXPECT_EQ(dep.at("metadata").at("annotations").at("attune.io/persisted-revision"), "rev-abc");
    EXPECT_EQ(dep.at("metadata").at("annotations").at("attune.io/persisted-policy"), "web");
    EXPECT_EQ(dep.at("spec").at("template").at("metadata").at("annotations").at("attune.io/revision"), "rev-abc");
}

TEST_F(HandlerTest, AnUnrelatedUpdateIsUntouched) {
    add(policies, policy("web", 100, "{}", kAwaitingStatus));
    const auto dep = admitted(update_review("[]", "[]", R"({"app":"web","team":"a"})"), kWorkloadUpdatePath);
    EXPECT_EQ(dep.at("spec").at("template").at("spec").at("containers").at(0).at("resources").at("requests").at("cpu"), "1");
    EXPECT_FALSE(dep.at("metadata").as_object().contains("annotations"));
    EXPECT_EQ(metric("reason=template_unchanged"), "1");
}

TEST_F(HandlerTest, WithoutAValidatedEntryATemplateChangeIsUntouched) {
    const auto dep = admitted(update_review("[]", R"([{"name":"A","value":"1"}])", R"({"app":"web"})"), kWorkloadUpdatePath);
    EXPECT_EQ(dep.at("spec").at("template").at("spec").at("containers").at(0).at("resources").at("requests").at("cpu"), "1");
    EXPECT_EQ(metric("reason=no_candidate"), "1");
}

// --watch-namespaces: a namespace outside the flag is never sized nor
// persisted into, even when the caches know its namespace, policy and
// recommendation (they cannot, in the manager: its informers never list it).
TEST_F(HandlerTest, RequestsOfAnUnwatchedNamespaceAreAllowedUnchanged) {
    rebuild(kube::WatchScope({"team-a"}));
    EXPECT_FALSE(sized(admitted(pod_review())));  // sized at 250m without the flag (the first test)
    EXPECT_EQ(metric("operation=pod_create,reason=namespace_not_watched"), "1");
    add(policies, policy("web", 100, R"({})", kAwaitingStatus));
    const auto dep = admitted(update_review("[]", R"([{"name":"A","value":"1"}])", R"({"app":"web"})"), kWorkloadUpdatePath);
    EXPECT_EQ(dep.at("spec").at("template").at("spec").at("containers").at(0).at("resources").at("requests").at("cpu"), "1");
    EXPECT_EQ(metric("operation=workload_update,reason=namespace_not_watched"), "1");
    // The same requests in a watched namespace: persisted as without the flag.
    rebuild(kube::WatchScope({"team-a", "shop"}));
    const auto again = admitted(update_review("[]", R"([{"name":"A","value":"1"}])", R"({"app":"web"})"), kWorkloadUpdatePath);
    EXPECT_EQ(again.at("spec").at("template").at("spec").at("containers").at(0).at("resources").at("requests").at("cpu"),
              "200m");
    EXPECT_EQ(metric("operation=workload_update,reason=namespace_not_watched"), "1");
}

// ------------------------------------------------------- policy webhooks ---

// An AdmissionReview of an attune.io object; `old` is the oldObject ("" for none).
std::string policy_review(const std::string& kind, const std::string& operation, const std::string& object,
                          const std::string& old = "") {
    const std::string ns = kind == "AttuneDefaults" ? "" : "shop";
    return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"rev-p",
      "kind":{"group":"attune.io","version":"v1alpha1","kind":")" +
           kind + R"("},
      "resource":{"group":"attune.io","version":"v1alpha1","resource":"x"},"namespace":")" +
           ns + R"(","name":"web","operation":")" + operation + R"(","object":)" + object +
           (old.empty() ? std::string() : R"(,"oldObject":)" + old) + "}}";
}
// An AttunePolicy of spec `fields` (after targetRef, cpu and memory).
std::string policy_object(const std::string& fields = "", const std::string& memory = "{}") {
    return R"({"apiVersion":"attune.io/v1alpha1","kind":"AttunePolicy","metadata":{"name":"web","namespace":"shop"},
      "spec":{"targetRef":{"kind":"Deployment","name":"web"},"cpu":{},"memory":)" +
           memory + (fields.empty() ? "" : ",") + fields + "}}";
}
std::string zone_policy(const std::string& zone) {
    return policy_object(R"("updateStrategy":{"type":"Auto","schedule":{"timezone":")" + zone +
                         R"(","windows":[{"start":"01:00","end":"05:00"}]}})");
}

struct PolicyReply {
    unsigned status = 0;
    json::value response;  // null unless 200
};

struct PolicyWebhooks : HandlerTest {
    PolicyReply review(std::string_view path, const std::string& body) {
        auto reply = post(path, body);
        PolicyReply out{reply.status, nullptr};
        if (reply.status == 200) out.response = json::parse(reply.body).at("response");
        return out;
    }
    static std::vector<std::string> warnings(const json::value& resp) {
        std::vector<std::string> w;
        if (const auto* a = resp.as_object().if_contains("warnings"))
            for (const auto& x : a->as_array()) w.emplace_back(x.as_string());
        return w;
    }
};

TEST_F(PolicyWebhooks, TheDecisionsTable) {
    struct Row {
        const char* name;
        std::string_view path;
        std::string body;
        unsigned status;
        bool allowed;
        std::string message;  // part of status.message; "" for none
        std::string warning;  // part of the first warning; "" for none
    };
    const Row rows[] = {
        {"Mars/Phobos", kValidatePolicyPath, policy_review("AttunePolicy", "CREATE", zone_policy("Mars/Phobos")), 200,
         false,
         "spec.updateStrategy.schedule.timezone \"Mars/Phobos\" is not a time zone of the zone database: not in the "
         "zone database (/usr/share/zoneinfo)",
         ""},
        {"UTC", kValidatePolicyPath, policy_review("AttunePolicy", "CREATE", zone_policy("UTC")), 200, true, "", ""},
        {"loopback", kValidatePolicyPath,
         policy_review("AttunePolicy", "UPDATE",
                       policy_object(R"("metricsSource":{"prometheus":{"address":"http://127.0.0.1:9090"}})")),
         200, false, "127.0.0.1 is a loopback address", ""},
        {"python without allowDecrease", kValidatePolicyPath,
         policy_review("AttunePolicy", "CREATE",
                       policy_object(R"("runtimeProfile":"python","updateStrategy":{"type":"Auto"})")),
         200, true, "", ""},
        {"defaults", kValidateDefaultsPath,
         policy_review(
             "AttuneDefaults", "CREATE",
             defaults(
                 "AttuneDefaults", "base",
                 R"({"updateStrategy":{"schedule":{"timezone":"Mars/Phobos","windows":[{"start":"01:00","end":"02:00"}]}}})")),
         200, false, "\"Mars/Phobos\" is not a time zone", ""},
        {"namespace defaults", kValidateNamespaceDefaultsPath,
         policy_review("AttuneNamespaceDefaults", "CREATE",
                       defaults("AttuneNamespaceDefaults", "team",
                                R"({"memory":{"startupBoost":{"multiplier":"2","duration":"30s"}}})")),
         200, true, "", "memory.startupBoost is ignored"},
        {"misrouted kind", kValidatePolicyPath, policy_review("Pod", "CREATE", R"({"metadata":{"name":"p"}})"), 200,
         true, "", "attune: this webhook judges AttunePolicy, not Pod"},
        {"delete", kValidatePolicyPath, policy_review("AttunePolicy", "DELETE", "null"), 200, true, "", ""},
        {"no object", kValidatePolicyPath, policy_review("AttunePolicy", "CREATE", "null"), 200, false,
         "the request carries no AttunePolicy object", ""},
        {"not json", kValidatePolicyPath, "{not json", 400, false, "", ""},
        {"no request", kValidateDefaultsPath, R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})", 400,
         false, "", ""},
        {"v1beta1", kMutatePolicyPath,
         R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"x"}})", 400, false, "",
         ""},
        {"request of the wrong type", kValidateNamespaceDefaultsPath,
         R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":[1]})", 400, false, "", ""},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.name);
        const auto got = review(r.path, r.body);
        ASSERT_EQ(got.status, r.status);
        if (r.status != 200) continue;
        EXPECT_EQ(got.response.at("uid"), "rev-p");
        EXPECT_EQ(got.response.at("allowed").as_bool(), r.allowed);
        if (!r.message.empty()) {
            const auto& st = got.response.at("status");
            EXPECT_EQ(st.at("code"), 403);
            EXPECT_NE(std::string(st.at("message").as_string()).find(r.message), std::string::npos) << st;
        }
        const auto w = warnings(got.response);
        if (r.warning.empty()) {
            EXPECT_TRUE(w.empty()) << w.front();
        } else {
            ASSERT_FALSE(w.empty());
            EXPECT_NE(w.front().find(r.warning), std::string::npos) << w.front();
        }
    }
}

TEST_F(PolicyWebhooks, AnExplicitAllowDecreaseUnderAJavaProfileIsAdmittedWithGosWarnings) {
    const auto got = review(kValidatePolicyPath,
                            policy_review("AttunePolicy", "CREATE",
                                          policy_object(R"("runtimeProfile":"java","updateStrategy":{"type":"Auto"})",
                                                        R"({"allowDecrease":true})")));
    ASSERT_EQ(got.status, 200u);
    EXPECT_EQ(got.response.at("allowed"), true);
    const auto w = warnings(got.response);
    ASSERT_EQ(w.size(), 2u);
    EXPECT_EQ(w[0],
              "memory.allowDecrease lowers memory in place, which can OOM-kill a container whose usage grows back");
    EXPECT_EQ(w[1],
              "runtimeProfile java advises against lowering memory in place (its runtime may keep a heap sized for "
              "the old limit); consider allowDecrease false, or a memory resizePolicy of RestartContainer");
}

TEST_F(PolicyWebhooks, TheCachedTiersAreReadForCrossObjectWarnings) {
    add(namespace_defaults, defaults("AttuneNamespaceDefaults", "team",
                                     R"({"metricsSource":{"prometheus":{"address":"http://[::1]:9090"}}})"));
    const auto got = review(kValidatePolicyPath, policy_review("AttunePolicy", "CREATE", policy_object()));
    ASSERT_EQ(got.status, 200u);
    EXPECT_EQ(got.response.at("allowed"), true);
    const auto w = warnings(got.response);
    ASSERT_EQ(w.size(), 1u);
    EXPECT_NE(w[0].find("will report this policy InvalidConfig"), std::string::npos) << w[0];
    // Not listed yet: nothing is said.
    synced = false;
    EXPECT_TRUE(warnings(review(kValidatePolicyPath, policy_review("AttunePolicy", "CREATE", policy_object())).response)
                    .empty());
}

TEST_F(PolicyWebhooks, AStoredBadObjectCanStillBeUpdatedAndDeleted) {
    const auto bad = zone_policy("Mars/Phobos");
    auto update = review(kValidatePolicyPath, policy_review("AttunePolicy", "UPDATE", bad, bad));
    EXPECT_EQ(update.response.at("allowed"), true);
    ASSERT_EQ(warnings(update.response).size(), 1u);
    EXPECT_NE(warnings(update.response)[0].find("admitted because the stored object breaks the same rule"),
              std::string::npos);
    // Made worse in another way: refused.
    const auto worse =
        review(kValidatePolicyPath, policy_review("AttunePolicy", "UPDATE", zone_policy("Venus/Cloud"), bad));
    EXPECT_EQ(worse.response.at("allowed"), false);
    // A finalizer coming off.
    auto deleting = json::parse(bad);
    deleting.at("metadata").as_object()["deletionTimestamp"] = "2026-12-01T10:00:00Z";
    EXPECT_EQ(review(kValidatePolicyPath, policy_review("AttunePolicy", "UPDATE", json::serialize(deleting), bad))
                  .response.at("allowed"),
              true);
}

TEST_F(PolicyWebhooks, ANamespaceOutsideWatchNamespacesIsNotJudged) {
    rebuild(kube::WatchScope({"team-a"}));
    const auto body = policy_review("AttunePolicy", "CREATE", zone_policy("Mars/Phobos"));
    EXPECT_EQ(review(kValidatePolicyPath, body).response.at("allowed"), true);
    rebuild(kube::WatchScope({"team-a", "shop"}));
    EXPECT_EQ(review(kValidatePolicyPath, body).response.at("allowed"), false);
}

TEST_F(PolicyWebhooks, WeightZeroIsDefaultedToOneHundred) {
    auto object = json::parse(policy_object());
    object.at("spec").as_object()["weight"] = 0;
    const auto review_text = policy_review("AttunePolicy", "CREATE", json::serialize(object));
    auto reply = post(kMutatePolicyPath, review_text);
    ASSERT_EQ(reply.status, 200u);
    const auto resp = json::parse(reply.body).at("response");
    EXPECT_EQ(resp.at("allowed"), true);
    ASSERT_EQ(resp.at("patchType"), "JSONPatch");
    auto patched =
        core::apply_json_patch(object, json::parse(*core::base64_decode(resp.at("patch").as_string())).as_array());
    ASSERT_TRUE(patched.ok());
    EXPECT_EQ(patched.value().at("spec").at("weight"), 100);
    // Set: no patch.
    object.at("spec").as_object()["weight"] = 7;
    const auto kept =
        json::parse(post(kMutatePolicyPath, policy_review("AttunePolicy", "CREATE", json::serialize(object))).body)
            .at("response");
    EXPECT_FALSE(kept.as_object().contains("patch"));
    http::ServerRequest get;
    get.method = "GET";
    get.target = kMutatePolicyPath;
    EXPECT_EQ(handler->handle(get).status, 405u);
}

TEST_F(PolicyWebhooks, EachDecisionIsCountedUnderTheGoOperatorsOperationNames) {
    review(kValidatePolicyPath, policy_review("AttunePolicy", "CREATE", zone_policy("Mars/Phobos")));
    review(kValidatePolicyPath, policy_review("AttunePolicy", "UPDATE", zone_policy("UTC")));
    review(kValidatePolicyPath, policy_review("AttunePolicy", "UPDATE", zone_policy("UTC")));
    review(kMutatePolicyPath, policy_review("AttunePolicy", "CREATE", policy_object()));
    review(kValidateDefaultsPath,
           policy_review("AttuneDefaults", "CREATE", defaults("AttuneDefaults", "base", R"({"cpu":{}})")));
    review(kValidateNamespaceDefaultsPath,
           policy_review("AttuneNamespaceDefaults", "UPDATE", defaults("AttuneNamespaceDefaults", "team", "{}")));
    review(kValidatePolicyPath, policy_review("AttunePolicy", "DELETE", "null"));  // not judged: not counted
    review(kValidatePolicyPath, "{not json");                                      // no decision: not counted

    const auto& v = metrics->validations;
    EXPECT_EQ(counter(v, "operation=validate_create,result=rejected,"), "1");
    EXPECT_EQ(counter(v, "operation=validate_create,result=allowed,"), "0");
    EXPECT_EQ(counter(v, "operation=validate_update,result=allowed,"), "2");
    EXPECT_EQ(counter(v, "operation=defaulting,result=allowed,"), "1");
    EXPECT_EQ(counter(v, "operation=defaults_validate_create,result=allowed,"), "1");
    EXPECT_EQ(counter(v, "operation=namespace_defaults_validate_update,result=allowed,"), "1");
    std::size_t series = 0;
    for (const auto& f : v.Collect()) series += f.metric.size();
    EXPECT_EQ(series, 5u);
    // The same names time each decision.
    EXPECT_EQ(counter(metrics->duration, "operation=validate_update,"), "2");
    EXPECT_EQ(counter(metrics->duration, "operation=defaulting,"), "1");
    EXPECT_EQ(counter(metrics->duration, "operation=policy_validate,"), "0");
}

}  // namespace
}  // namespace attune::webhook
