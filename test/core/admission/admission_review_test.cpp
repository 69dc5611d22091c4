#include "attune/core/admission/admission_review.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "attune/core/util/base64.hpp"

namespace attune::core {
namespace {
namespace json = boost::json;

constexpr const char* kReview = R"({
  "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
  "request": {
    "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
    "kind": {"group": "", "version": "v1", "kind": "Pod"},
    "resource": {"group": "", "version": "v1", "resource": "pods"},
    "namespace": "shop", "operation": "CREATE",
    "userInfo": {"username": "system:serviceaccount:kube-system:replicaset-controller"},
    "dryRun": true,
    "object": {"metadata": {"generateName": "web-7d9-"}, "spec": {"containers": [{"name": "app"}]}},
    "oldObject": null
  }
})";

TEST(DecodeAdmissionReview, ReadsTheRequestFields) {
    auto r = decode_admission_review(kReview);
    ASSERT_TRUE(r.ok()) << r.error().message;
    const auto& req = r.value();
    EXPECT_EQ(req.uid, "705ab4f5-6393-11e8-b7cc-42010a800002");
    EXPECT_EQ(req.kind.kind, "Pod");
    EXPECT_EQ(req.kind.version, "v1");
    EXPECT_EQ(req.resource.resource, "pods");
    EXPECT_EQ(req.namespace_, "shop");
    EXPECT_EQ(req.operation, "CREATE");
    EXPECT_EQ(req.username, "system:serviceaccount:kube-system:replicaset-controller");
    EXPECT_TRUE(req.dry_run);
    ASSERT_TRUE(req.object.is_object());
    EXPECT_TRUE(req.old_object.is_null());
}

struct BadReview {
    const char* name;
    const char* body;
    const char* message;  // substring of the error message
};

class DecodeMalformedReview : public ::testing::TestWithParam<BadReview> {};

TEST_P(DecodeMalformedReview, IsAClearError) {
    auto r = decode_admission_review(GetParam().body);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "invalid_admission_review");
    EXPECT_NE(r.error().message.find(GetParam().message), std::string::npos) << r.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, DecodeMalformedReview,
    ::testing::Values(
        BadReview{"empty", "", "not JSON"},
        BadReview{"truncated", R"({"apiVersion":"admission.k8s.io/v1",)", "not JSON"},
        BadReview{"array", "[]", "expected an object"},
        BadReview{"v1beta1", R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"u"}})",
                  "want 'admission.k8s.io/v1'"},
        BadReview{"wrong_kind", R"({"apiVersion":"admission.k8s.io/v1","kind":"Pod","request":{"uid":"u"}})",
                  "want 'AdmissionReview'"},
        BadReview{"no_request", R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})", "no request"},
        BadReview{"no_uid", R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}})",
                  "request.uid is missing"},
        BadReview{"uid_not_string", R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":7}})",
                  "request.uid: expected a string"},
        BadReview{"object_not_object",
                  R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","object":"x"}})",
                  "request.object: expected an object"},
        BadReview{"dry_run_not_bool",
                  R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","dryRun":"yes"}})",
                  "request.dryRun: expected a boolean"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

// A well-formed review whose object nests `levels` objects deep.
std::string nested_review(int levels) {
    std::string s = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","object":{"metadata":{"name":"p"},"x":)";
    for (int i = 0; i < levels; ++i) s += R"({"a":)";
    s += "1";
    for (int i = 0; i < levels; ++i) s += "}";
    return s + "}}}";
}

TEST(DecodeAdmissionReview, NestingBeyondTheDepthLimitIsRefusedNotACrash) {
    // Within the limit the same shape decodes: the depth alone decides.
    EXPECT_TRUE(decode_admission_review(nested_review(100)).ok()) << decode_admission_review(nested_review(100)).error().message;
    const auto deep = decode_admission_review(nested_review(100000));
    ASSERT_FALSE(deep.ok());
    EXPECT_NE(deep.error().message.find("body is not JSON"), std::string::npos) << deep.error().message;
    EXPECT_NE(deep.error().message.find("deep"), std::string::npos) << deep.error().message;
}

TEST(EncodeAdmissionReview, EchoesTheUidAndSendsTheBase64Patch) {
    AdmissionResponse resp;
    resp.uid = "abc";
    resp.patch = json::parse(R"([{"op":"add","path":"/metadata/annotations","value":{"a":"b"}}])").as_array();
    resp.warnings = {"attune: hello"};
    const auto out = json::parse(encode_admission_review(resp));
    EXPECT_EQ(out.at("apiVersion"), "admission.k8s.io/v1");
    EXPECT_EQ(out.at("kind"), "AdmissionReview");
    const auto& r = out.at("response");
    EXPECT_EQ(r.at("uid"), "abc");
    EXPECT_EQ(r.at("allowed"), true);
    EXPECT_EQ(r.at("patchType"), "JSONPatch");
    auto decoded = base64_decode(r.at("patch").as_string());
    ASSERT_TRUE(decoded);
    EXPECT_EQ(json::parse(*decoded), json::value(resp.patch));
    EXPECT_EQ(r.at("warnings").as_array().size(), 1u);
    EXPECT_FALSE(r.as_object().contains("status"));
}

TEST(EncodeAdmissionReview, NoPatchMeansNoPatchType) {
    AdmissionResponse resp;
    resp.uid = "abc";
    const auto r = json::parse(encode_admission_review(resp)).at("response");
    EXPECT_FALSE(r.as_object().contains("patch"));
    EXPECT_FALSE(r.as_object().contains("patchType"));
    EXPECT_FALSE(r.as_object().contains("warnings"));
}

TEST(EncodeAdmissionReview, ADenialCarriesItsStatus) {
    AdmissionResponse resp;
    resp.uid = "abc";
    resp.allowed = false;
    resp.status_code = 403;
    resp.status_message = "no";
    const auto r = json::parse(encode_admission_review(resp)).at("response");
    EXPECT_EQ(r.at("allowed"), false);
    EXPECT_EQ(r.at("status").at("code"), 403);
    EXPECT_EQ(r.at("status").at("message"), "no");
}

TEST(EncodeAdmissionReview, LongWarningsAreCutWithoutSplittingUtf8) {
    AdmissionResponse resp;
    resp.uid = "abc";
    std::string w(kMaxWarningLength - 4, 'x');
    w += "\xc3\xa9\xc3\xa9\xc3\xa9";  // three two-byte characters straddling the cut
    resp.warnings = {w};
    const auto r = json::parse(encode_admission_review(resp)).at("response");
    const std::string got(r.at("warnings").at(0).as_string());
    EXPECT_LE(got.size(), kMaxWarningLength);
    EXPECT_EQ(got.substr(got.size() - 3), "...");
    EXPECT_EQ(got.substr(0, kMaxWarningLength - 4), std::string(kMaxWarningLength - 4, 'x'));
}

}  // namespace
}  // namespace attune::core
