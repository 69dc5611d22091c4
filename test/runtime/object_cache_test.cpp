#include <attune/kube/object_cache.hpp>

#include <boost/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>

namespace attune::kube {
namespace {
namespace json = boost::json;

json::value pod(std::string_view ns, std::string_view name, std::string_view rv, std::string_view owner = {}) {
    json::object md{{"name", name}, {"namespace", ns}, {"resourceVersion", rv}, {"uid", std::string(name) + "-uid"},
                    {"managedFields", json::array{json::object{{"manager", "kubectl"}}}}};
    if (!owner.empty()) md["ownerReferences"] = json::array{json::object{{"kind", "ReplicaSet"}, {"uid", owner}}};
    return json::object{{"kind", "Pod"}, {"metadata", std::move(md)}};
}

std::vector<std::string> names(const std::vector<ObjectCache::ObjectPtr>& v) {
    std::vector<std::string> out;
    for (auto& o : v) out.emplace_back(meta_string(*o, "name"));
    std::sort(out.begin(), out.end());
    return out;
}

TEST(ObjectCache, AddUpdateDeleteProduceDeltas) {
    ObjectCache c(strip_pod);
    auto a = c.apply(WatchEventType::Added, pod("ns", "a", "1"));
    ASSERT_TRUE(a);
    EXPECT_EQ(a->what, ObjectCache::Delta::Kind::Added);
    EXPECT_EQ(a->key, "ns/a");
    EXPECT_FALSE(a->new_object->at("metadata").as_object().contains("managedFields"));
    auto u = c.apply(WatchEventType::Modified, pod("ns", "a", "2"));
    ASSERT_TRUE(u);
    EXPECT_EQ(u->what, ObjectCache::Delta::Kind::Updated);
    EXPECT_EQ(meta_string(*u->old_object, "resourceVersion"), "1");
    EXPECT_FALSE(c.apply(WatchEventType::Modified, pod("ns", "a", "2")));  // replay: no change
    auto d = c.apply(WatchEventType::Deleted, pod("ns", "a", "3"));
    ASSERT_TRUE(d);
    EXPECT_EQ(d->what, ObjectCache::Delta::Kind::Deleted);
    EXPECT_EQ(c.size(), 0u);
    EXPECT_FALSE(c.apply(WatchEventType::Deleted, pod("ns", "a", "4")));
}

TEST(ObjectCache, ForEachVisitsEveryObjectOfBothStorages) {
    for (const auto storage : {CacheStorage::Tree, CacheStorage::CompactText}) {
        ObjectCache c(strip_pod, storage);
        c.apply(WatchEventType::Added, pod("ns", "a", "1"));
        c.apply(WatchEventType::Added, pod("ns", "b", "1"));
        c.apply(WatchEventType::Added, pod("other", "c", "1"));
        c.apply(WatchEventType::Deleted, pod("ns", "b", "2"));
        std::vector<std::string> seen;
        c.for_each([&](const json::value& o) { seen.emplace_back(meta_string(o, "name")); });
        std::sort(seen.begin(), seen.end());
        EXPECT_EQ(seen, (std::vector<std::string>{"a", "c"}));
        EXPECT_EQ(seen, names(c.all()));
    }
}

TEST(ObjectCache, IndexesByNamespaceAndOwner) {
    ObjectCache c;
    c.apply(WatchEventType::Added, pod("a", "p1", "1", "rs-1"));
    c.apply(WatchEventType::Added, pod("a", "p2", "1", "rs-2"));
    c.apply(WatchEventType::Added, pod("b", "p3", "1", "rs-1"));
    EXPECT_EQ(names(c.in_namespace("a")), (std::vector<std::string>{"p1", "p2"}));
    EXPECT_EQ(names(c.owned_by("rs-1")), (std::vector<std::string>{"p1", "p3"}));
    // Ownership change moves the index entry.
    c.apply(WatchEventType::Modified, pod("a", "p1", "2", "rs-2"));
    EXPECT_EQ(names(c.owned_by("rs-1")), (std::vector<std::string>{"p3"}));
    EXPECT_EQ(names(c.owned_by("rs-2")), (std::vector<std::string>{"p1", "p2"}));
    c.apply(WatchEventType::Deleted, pod("b", "p3", "2"));
    EXPECT_TRUE(c.in_namespace("b").empty());
    EXPECT_TRUE(c.owned_by("rs-1").empty());
}

TEST(ObjectCache, ReplaceReportsVanishedObjects) {
    ObjectCache c;
    c.apply(WatchEventType::Added, pod("a", "keep", "1"));
    c.apply(WatchEventType::Added, pod("a", "gone", "1"));
    c.apply(WatchEventType::Added, pod("a", "same", "1"));
    json::array fresh{pod("a", "keep", "5"), pod("a", "new", "5"), pod("a", "same", "1")};
    auto deltas = c.replace(std::move(fresh));
    std::map<std::string, ObjectCache::Delta::Kind> seen;
    for (auto& d : deltas) seen[d.key] = d.what;
    EXPECT_EQ(seen.size(), 3u);
    EXPECT_EQ(seen["a/keep"], ObjectCache::Delta::Kind::Updated);
    EXPECT_EQ(seen["a/new"], ObjectCache::Delta::Kind::Added);
    EXPECT_EQ(seen["a/gone"], ObjectCache::Delta::Kind::Deleted);
    EXPECT_EQ(c.size(), 3u);
}

TEST(ObjectCache, ClusterScopedKeysAndNamelessObjects) {
    ObjectCache c;
    json::value node = {{"metadata", {{"name", "n1"}, {"resourceVersion", "1"}}}};
    ASSERT_TRUE(c.apply(WatchEventType::Added, node));
    EXPECT_TRUE(c.get("n1"));
    EXPECT_FALSE(c.apply(WatchEventType::Added, json::value{{"metadata", json::object{}}}));
    EXPECT_FALSE(c.apply(WatchEventType::Added, json::value(42)));
}

TEST(ObjectCache, SnapshotsSurviveLaterUpdates) {
    ObjectCache c;
    c.apply(WatchEventType::Added, pod("a", "p", "1"));
    auto snap = c.get("a/p");
    c.apply(WatchEventType::Modified, pod("a", "p", "2"));
    EXPECT_EQ(meta_string(*snap, "resourceVersion"), "1");
}

TEST(ObjectCache, CompactTextStorageBehavesLikeTrees) {
    ObjectCache c(strip_pod, CacheStorage::CompactText);
    auto a = c.apply(WatchEventType::Added, pod("ns", "a", "1", "rs-1"));
    ASSERT_TRUE(a);
    EXPECT_FALSE(a->new_object->at("metadata").as_object().contains("managedFields"));
    EXPECT_FALSE(c.apply(WatchEventType::Modified, pod("ns", "a", "1", "rs-1")));
    auto u = c.apply(WatchEventType::Modified, pod("ns", "a", "2", "rs-2"));
    ASSERT_TRUE(u);
    EXPECT_EQ(meta_string(*u->old_object, "resourceVersion"), "1");
    EXPECT_EQ(meta_string(*c.get("ns/a"), "resourceVersion"), "2");
    EXPECT_TRUE(c.owned_by("rs-1").empty());
    EXPECT_EQ(names(c.owned_by("rs-2")), (std::vector<std::string>{"a"}));
    EXPECT_EQ(names(c.in_namespace("ns")), (std::vector<std::string>{"a"}));
    auto d = c.apply(WatchEventType::Deleted, pod("ns", "a", "3"));
    ASSERT_TRUE(d);
    EXPECT_EQ(meta_string(*d->old_object, "resourceVersion"), "2");
    EXPECT_EQ(c.size(), 0u);
}

}  // namespace
}  // namespace attune::kube

namespace attune::kube {
namespace {

// A compact-text read parses into one block sized to the text, freed with
// the tree: one allocation per read, not one per string and object.
// remember_reads(n): an unchanged object read again is the same tree (no
// parse); a changed one is read afresh; only the last n are kept.
TEST(ObjectCache, RememberedReadsParseAnUnchangedObjectOnce) {
    ObjectCache plain(strip_pod, CacheStorage::CompactText);
    plain.apply(WatchEventType::Added, pod("ns", "a", "1"));
    EXPECT_NE(plain.get("ns/a"), plain.get("ns/a"));  // each read parses

    ObjectCache c(strip_pod, CacheStorage::CompactText);
    c.remember_reads(2);
    for (const char* n : {"a", "b", "c"}) c.apply(WatchEventType::Added, pod("ns", n, "1"));
    const auto a1 = c.get("ns/a");
    EXPECT_EQ(c.get("ns/a"), a1);
    c.apply(WatchEventType::Modified, pod("ns", "a", "2"));
    const auto a2 = c.get("ns/a");
    EXPECT_NE(a2, a1);
    EXPECT_EQ(meta_string(*a2, "resourceVersion"), "2");
    EXPECT_EQ(meta_string(*a1, "resourceVersion"), "1");  // a reader's snapshot stays as it was
    const auto b = c.get("ns/b");
    EXPECT_EQ(c.get("ns/a"), a2);  // a2 and b are the two kept
    c.get("ns/c");                 // c pushes a2 out
    EXPECT_EQ(c.get("ns/b"), b);
    EXPECT_NE(c.get("ns/a"), a2);  // parsed again: the same content, a new tree
}

TEST(ObjectCache, ACompactTextReadLivesInOneBlockNotTheDefaultHeap) {
    ObjectCache c(strip_pod, CacheStorage::CompactText);
    c.apply(WatchEventType::Added, pod("shop", "a-pod-name-longer-than-sso", "1"));
    const auto obj = c.get("shop/a-pod-name-longer-than-sso");
    ASSERT_TRUE(obj);
    const auto* heap = boost::json::storage_ptr().get();
    EXPECT_NE(obj->storage().get(), heap);
    EXPECT_EQ(obj->at("metadata").at("name").storage().get(), obj->storage().get());
}

TEST(ObjectCache, ResyncItemByItemAppliesAsItGoesAndDropsWhatWasNotListed) {
    ObjectCache c(strip_pod, CacheStorage::CompactText);
    c.apply(WatchEventType::Added, pod("ns", "kept", "1"));
    c.apply(WatchEventType::Added, pod("ns", "changed", "1"));
    c.apply(WatchEventType::Added, pod("ns", "gone", "1"));
    c.begin_resync();
    EXPECT_FALSE(c.apply(WatchEventType::Added, pod("ns", "kept", "1")));  // same version: no delta, but seen
    auto changed = c.apply(WatchEventType::Added, pod("ns", "changed", "2"));
    ASSERT_TRUE(changed);
    EXPECT_EQ(changed->what, ObjectCache::Delta::Kind::Updated);
    auto fresh = c.apply(WatchEventType::Added, pod("ns", "new", "2"));
    ASSERT_TRUE(fresh);
    EXPECT_EQ(fresh->what, ObjectCache::Delta::Kind::Added);
    EXPECT_EQ(c.size(), 4u);  // nothing dropped before the list ended
    auto gone = c.end_resync();
    ASSERT_EQ(gone.size(), 1u);
    EXPECT_EQ(gone[0].key, "ns/gone");
    EXPECT_EQ(gone[0].what, ObjectCache::Delta::Kind::Deleted);
    EXPECT_EQ(c.size(), 3u);
    EXPECT_TRUE(c.in_namespace("ns").size() == 3u);
    // A second resync that lists everything again deletes nothing.
    c.begin_resync();
    for (const char* n : {"kept", "changed", "new"})
        c.apply(WatchEventType::Added, pod("ns", n, n == std::string("kept") ? "1" : "2"));
    EXPECT_TRUE(c.end_resync().empty());
}

// --watch-namespaces: one cache fed by one stream per namespace. Their
// initial lists interleave; each stream's relist drops only what it listed
// before and did not list again, never another namespace's objects.
TEST(ObjectCache, OverlappingResyncsOfSeveralSourcesDropOnlyTheirOwnObjects) {
    ObjectCache c(strip_pod, CacheStorage::CompactText);
    constexpr ObjectCache::SourceId kA = 0, kB = 1;
    c.apply(WatchEventType::Added, pod("a", "old", "1"), kA);
    c.apply(WatchEventType::Added, pod("b", "old", "1"), kB);
    c.begin_resync(kA);
    c.apply(WatchEventType::Added, pod("a", "x", "2"), kA);
    c.begin_resync(kB);  // B's list starts while A's is still running
    c.apply(WatchEventType::Added, pod("b", "y", "2"), kB);
    c.apply(WatchEventType::Added, pod("a", "z", "3"), kA);
    // A ends: its "old" went unlisted; B's objects, listed or not yet, stay.
    auto gone_a = c.end_resync(kA);
    ASSERT_EQ(gone_a.size(), 1u);
    EXPECT_EQ(gone_a[0].key, "a/old");
    EXPECT_TRUE(c.get("b/old"));
    EXPECT_TRUE(c.get("a/x"));  // listed before B began: still A's and seen
    // B lists "old" again (a replay: seen, no delta) and ends: nothing goes.
    EXPECT_FALSE(c.apply(WatchEventType::Added, pod("b", "old", "1"), kB));
    EXPECT_TRUE(c.end_resync(kB).empty());
    EXPECT_EQ(c.size(), 4u);
    // A later relist of B alone that misses "y" drops exactly that.
    c.begin_resync(kB);
    c.apply(WatchEventType::Added, pod("b", "old", "1"), kB);
    auto gone_b = c.end_resync(kB);
    ASSERT_EQ(gone_b.size(), 1u);
    EXPECT_EQ(gone_b[0].key, "b/y");
    EXPECT_EQ(names(c.in_namespace("a")), (std::vector<std::string>{"x", "z"}));
    // Ending a resync that was never begun deletes nothing.
    EXPECT_TRUE(c.end_resync(7).empty());
    EXPECT_EQ(c.size(), 3u);
}

struct OwnerView {
    std::string name;
    int owners = 0;
};

TEST(ObjectCache, DecodedViewsAreMadeOncePerChangeAndFoundBySecondaryIndex) {
    ObjectCache c(strip_generic, CacheStorage::CompactText);
    int decodes = 0;
    c.decode_as<OwnerView>(decoded_view<OwnerView>([&decodes](const json::value& v) -> std::optional<OwnerView> {
        ++decodes;
        if (meta_string(v, "name") == "bad") return std::nullopt;
        auto* refs = v.at("metadata").as_object().if_contains("ownerReferences");
        return OwnerView{std::string(meta_string(v, "name")), refs ? static_cast<int>(refs->as_array().size()) : 0};
    }));
    c.index_by([](const json::value& v) {
        auto* refs = v.at("metadata").as_object().if_contains("ownerReferences");
        return refs ? std::string(refs->as_array()[0].at("uid").as_string()) : std::string();
    });
    c.apply(WatchEventType::Added, pod("a", "p1", "1", "rs-1"));
    c.apply(WatchEventType::Added, pod("a", "p2", "1", "rs-2"));
    c.apply(WatchEventType::Added, pod("a", "bad", "1", "rs-1"));
    c.apply(WatchEventType::Added, pod("b", "p3", "1"));
    EXPECT_EQ(decodes, 4);
    for (int i = 0; i < 10; ++i) EXPECT_EQ(c.decoded_in_namespace<OwnerView>("a").size(), 2u);  // "bad" has no view
    EXPECT_EQ(decodes, 4);  // reads never decode
    auto p1 = c.decoded<OwnerView>("a/p1");
    ASSERT_TRUE(p1);
    EXPECT_EQ(p1->owners, 1);
    EXPECT_EQ(c.decoded_by_index<OwnerView>("rs-1").size(), 1u);
    EXPECT_EQ(c.by_index("rs-1").size(), 2u);
    EXPECT_TRUE(c.by_index("").empty());
    c.apply(WatchEventType::Modified, pod("a", "p1", "2", "rs-2"));
    EXPECT_EQ(decodes, 5);
    EXPECT_TRUE(c.decoded_by_index<OwnerView>("rs-1").empty());
    EXPECT_EQ(c.decoded_by_index<OwnerView>("rs-2").size(), 2u);
    c.apply(WatchEventType::Deleted, pod("a", "p2", "3", "rs-2"));
    EXPECT_EQ(c.decoded_by_index<OwnerView>("rs-2").size(), 1u);
    EXPECT_FALSE(c.decoded<OwnerView>("a/p2"));
    EXPECT_THROW(c.decoded<int>("a/p1"), std::logic_error);
}

TEST(ObjectCache, StoredBytesFollowTheCompactText) {
    ObjectCache c(strip_pod, CacheStorage::CompactText);
    EXPECT_EQ(c.stored_bytes(), 0u);
    c.apply(WatchEventType::Added, pod("ns", "a", "1"));
    const auto one = c.stored_bytes();
    EXPECT_GT(one, 20u);
    c.apply(WatchEventType::Added, pod("ns", "b", "1"));
    EXPECT_GE(c.stored_bytes(), 2 * one - 8);
    c.apply(WatchEventType::Deleted, pod("ns", "a", "2"));
    c.apply(WatchEventType::Deleted, pod("ns", "b", "2"));
    EXPECT_EQ(c.stored_bytes(), 0u);
}

}  // namespace
}  // namespace attune::kube
