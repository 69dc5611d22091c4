#include <attune/controller/node_load_index.hpp>

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace attune::controller {
namespace {
namespace json = boost::json;
using kube::ObjectCache;

ObjectCache::ObjectPtr pod(const char* name, const char* node, const char* cpu, const char* phase = "Running") {
    return std::make_shared<const json::value>(json::parse(
        std::string(R"({"metadata":{"namespace":"ns","name":")") + name + R"("},"spec":{"nodeName":")" + node +
        R"(","containers":[{"name":"a","resources":{"requests":{"cpu":")" + cpu + R"("}}}]},"status":{"phase":")" +
        phase + R"("}})"));
}

ObjectCache::Delta change(ObjectCache::Delta::Kind k, const char* name, ObjectCache::ObjectPtr before,
                          ObjectCache::ObjectPtr after) {
    ObjectCache::Delta d;
    d.what = k;
    d.key = std::string("ns/") + name;
    d.old_object = std::move(before);
    d.new_object = std::move(after);
    return d;
}

std::string cpu(const core::ResourceList& l) {
    auto it = l.find("cpu");
    return it == l.end() ? "0" : it->second.to_string();
}

TEST(NodeLoadIndex, OtherPodsRequestsOnTheNodeKeptFromTheInformersChanges) {
    using K = ObjectCache::Delta::Kind;
    NodeLoadIndex idx;
    idx.apply(change(K::Added, "a", nullptr, pod("a", "n1", "500m")));
    idx.apply(change(K::Added, "b", nullptr, pod("b", "n1", "1")));
    idx.apply(change(K::Added, "c", nullptr, pod("c", "n2", "2")));
    idx.apply(change(K::Added, "done", nullptr, pod("done", "n1", "4", "Succeeded")));
    EXPECT_EQ(cpu(idx.others("n1", "ns/a")), "1") << "a itself and the finished pod hold no room";
    EXPECT_EQ(cpu(idx.others("n1", "ns/x")), "1500m");
    EXPECT_EQ(cpu(idx.others("n2", "ns/a")), "2") << "a is on n1: nothing to take off n2";

    idx.apply(change(K::Updated, "b", pod("b", "n1", "1"), pod("b", "n1", "250m")));
    EXPECT_EQ(cpu(idx.others("n1", "ns/a")), "250m") << "a resize moves the node's load";
    idx.apply(change(K::Updated, "b", pod("b", "n1", "250m"), pod("b", "n1", "250m", "Failed")));
    EXPECT_EQ(cpu(idx.others("n1", "ns/a")), "0");
    idx.apply(change(K::Deleted, "c", pod("c", "n2", "2"), nullptr));
    EXPECT_EQ(cpu(idx.others("n2", "ns/x")), "0");
    EXPECT_EQ(idx.pods(), 1u);
}

}  // namespace
}  // namespace attune::controller
