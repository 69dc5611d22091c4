// The recommendation store: one entry per workload, a generation that moves
// only when the sizing does, and subscribers told after each change.
#include <attune/controller/recommendation_store.hpp>

#include <gtest/gtest.h>

namespace attune::controller {
namespace {

core::Quantity q(const char* s) { return core::Quantity::parse(s).value(); }

core::ContainerRecommendation container(std::string name, const char* cpu, const char* memory) {
    core::ContainerRecommendation c;
    c.name = std::move(name);
    c.current.cpu_request = q("500m");
    c.current.memory_request = q("256Mi");
    c.recommended.cpu_request = q(cpu);
    c.recommended.memory_request = q(memory);
    c.confidence = 0.5;
    c.data_points = 96;
    return c;
}

std::shared_ptr<const core::EffectivePolicy> policy_in(core::UpdateMode mode) {
    auto p = std::make_shared<core::EffectivePolicy>();
    p->namespace_ = "shop";
    p->name = "web";
    p->update_strategy.type = mode;
    return p;
}

StoredRecommendation entry(std::string name, std::vector<core::ContainerRecommendation> containers,
                           std::shared_ptr<const core::EffectivePolicy> effective) {
    StoredRecommendation r;
    r.workload = {"shop", "Deployment", std::move(name)};
    r.workload_uid = "uid-1";
    r.policy = "web";
    r.effective = std::move(effective);
    r.recommendation.containers = std::move(containers);
    r.source = "prometheus";
    r.computed_at = core::Timestamp(std::chrono::seconds(1'767'225'600));
    return r;
}

struct Recorder {
    std::vector<std::string> seen;
    void attach(RecommendationStore& s) {
        s.on_change([this](const ObjectKey& k) { seen.push_back(k.str()); });
    }
};

TEST(RecommendationStore, FirstPutCreatesGenerationOneAndTellsSubscribers) {
    RecommendationStore s;
    Recorder r;
    r.attach(s);
    const auto p = policy_in(core::UpdateMode::Recommend);
    EXPECT_TRUE(s.put(entry("a", {container("app", "200m", "300Mi")}, p)));
    ASSERT_NE(s.get({"shop", "Deployment", "a"}), nullptr);
    EXPECT_EQ(s.get({"shop", "Deployment", "a"})->generation, 1u);
    EXPECT_EQ(r.seen, std::vector<std::string>{"shop/Deployment/a"});
    EXPECT_EQ(s.get({"shop", "Deployment", "b"}), nullptr);
}

// One row per kind of second put: does the generation move, is anyone told?
TEST(RecommendationStore, GenerationMovesOnlyWhenTheSizingChanges) {
    struct Row {
        const char* what;
        std::function<void(StoredRecommendation&, std::shared_ptr<const core::EffectivePolicy>&)> change;
        bool bumps;
        bool notifies;
    };
    const std::vector<Row> rows = {
        {"refresh: confidence, points, times",
         [](auto& e, auto&) {
             e.recommendation.containers[0].confidence = 0.9;
             e.recommendation.containers[0].data_points = 400;
             e.recommendation.containers[0].last_updated = 99;
             e.recommendation.last_data_time = 98;
             e.computed_at += std::chrono::seconds(300);
         },
         false, false},
        {"recommended cpu moved",
         [](auto& e, auto&) { e.recommendation.containers[0].recommended.cpu_request = q("210m"); }, true, true},
        {"recommended memory limit appeared",
         [](auto& e, auto&) { e.recommendation.containers[0].recommended.memory_limit = q("1Gi"); }, true, true},
        {"current moved (pods resized)",
         [](auto& e, auto&) { e.recommendation.containers[0].current.cpu_request = q("200m"); }, true, true},
        {"went stale", [](auto& e, auto&) { e.recommendation.stale = true; }, true, true},
        {"a second container",
         [](auto& e, auto&) { e.recommendation.containers.push_back(container("side", "10m", "8Mi")); }, true, true},
        {"other settings, same sizing", [](auto&, auto& p) { p = policy_in(core::UpdateMode::Auto); }, false, true},
        {"another winning policy", [](auto& e, auto&) { e.policy = "web-2"; }, false, true},
        {"recreated workload (new uid)", [](auto& e, auto&) { e.workload_uid = "uid-2"; }, false, true},
        {"another source", [](auto& e, auto&) { e.source = "vpa"; }, false, true},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.what);
        RecommendationStore s;
        auto p = policy_in(core::UpdateMode::Recommend);
        ASSERT_TRUE(s.put(entry("a", {container("app", "200m", "300Mi")}, p)));
        Recorder rec;
        rec.attach(s);
        auto e = entry("a", {container("app", "200m", "300Mi")}, p);
        r.change(e, p);
        e.effective = p;
        EXPECT_EQ(s.put(e), r.bumps);
        const auto* got = s.get({"shop", "Deployment", "a"});
        ASSERT_NE(got, nullptr);
        EXPECT_EQ(got->generation, r.bumps ? 2u : 1u);
        EXPECT_EQ(rec.seen.size(), r.notifies ? 1u : 0u);
        // The entry is replaced either way: the newest data is what is held.
        EXPECT_EQ(got->recommendation.containers[0].confidence, e.recommendation.containers[0].confidence);
        EXPECT_EQ(got->computed_at, e.computed_at);
    }
}

TEST(RecommendationStore, ObserveOrNoContainersErasesTheEntry) {
    RecommendationStore s;
    Recorder r;
    r.attach(s);
    const auto rec = policy_in(core::UpdateMode::Recommend);
    ASSERT_TRUE(s.put(entry("a", {container("app", "200m", "300Mi")}, rec)));
    EXPECT_FALSE(s.put(entry("a", {container("app", "200m", "300Mi")}, policy_in(core::UpdateMode::Observe))));
    EXPECT_EQ(s.get({"shop", "Deployment", "a"}), nullptr);
    ASSERT_TRUE(s.put(entry("a", {container("app", "200m", "300Mi")}, rec)));
    EXPECT_FALSE(s.put(entry("a", {}, rec)));
    EXPECT_EQ(s.get({"shop", "Deployment", "a"}), nullptr);
    EXPECT_EQ(r.seen.size(), 4u);  // put, erase, put, erase
    // Nothing held and nothing to hold: nobody is told.
    EXPECT_FALSE(s.put(entry("b", {}, rec)));
    EXPECT_EQ(r.seen.size(), 4u);
}

TEST(RecommendationStore, AnErasedAndRecreatedEntryNeverRepeatsAGeneration) {
    RecommendationStore s;
    const auto p = policy_in(core::UpdateMode::Recommend);
    s.put(entry("a", {container("app", "200m", "300Mi")}, p));
    s.put(entry("b", {container("app", "200m", "300Mi")}, p));
    s.erase({"shop", "Deployment", "a"});
    s.put(entry("a", {container("app", "200m", "300Mi")}, p));
    EXPECT_EQ(s.get({"shop", "Deployment", "a"})->generation, 3u);
    EXPECT_EQ(s.get({"shop", "Deployment", "b"})->generation, 2u);
}

TEST(RecommendationStore, EraseOfAnUnknownWorkloadTellsNobody) {
    RecommendationStore s;
    Recorder r;
    r.attach(s);
    s.erase({"shop", "Deployment", "a"});
    EXPECT_TRUE(r.seen.empty());
}

TEST(RecommendationStore, EverySubscriberSeesTheNewState) {
    RecommendationStore s;
    std::vector<std::uint64_t> generations;
    for (int i = 0; i < 2; ++i)
        s.on_change([&](const ObjectKey& k) {
            const auto* e = s.get(k);
            generations.push_back(e ? e->generation : 0);
        });
    const auto p = policy_in(core::UpdateMode::Recommend);
    s.put(entry("a", {container("app", "200m", "300Mi")}, p));
    s.erase({"shop", "Deployment", "a"});
    EXPECT_EQ(generations, (std::vector<std::uint64_t>{1, 1, 0, 0}));
}

TEST(RecommendationStore, InNamespaceListsOneNamespaceInKeyOrder) {
    RecommendationStore s;
    const auto p = policy_in(core::UpdateMode::Recommend);
    auto other = entry("z", {container("app", "200m", "300Mi")}, p);
    other.workload.ns = "shop-2";  // shares the prefix "shop" but not "shop/"
    s.put(other);
    s.put(entry("b", {container("app", "200m", "300Mi")}, p));
    s.put(entry("a", {container("app", "200m", "300Mi")}, p));
    const auto got = s.in_namespace("shop");
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0]->workload.name, "a");
    EXPECT_EQ(got[1]->workload.name, "b");
    EXPECT_EQ(s.size(), 3u);
}

TEST(RecommendationStore, SameSizingIgnoresEverythingButTheValues) {
    core::WorkloadRecommendation a, b;
    a.containers = {container("app", "200m", "300Mi")};
    b = a;
    b.containers[0].cpu = core::ResourceExplanation{};
    b.max_data_points = 7;
    b.insufficient.push_back({});
    EXPECT_TRUE(same_sizing(a, b));
    b.containers[0].name = "other";
    EXPECT_FALSE(same_sizing(a, b));
}

}  // namespace
}  // namespace attune::controller
