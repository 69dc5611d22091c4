#include "attune/core/admission/admission_review.hpp"

#include <boost/json.hpp>

#include "attune/core/util/base64.hpp"
#include "../util/json_decode.hpp"

namespace attune::core {
namespace json = boost::json;
using namespace detail;

namespace {

GroupVersionKind decode_gvk(const json::object& req, const std::string& path) {
    GroupVersionKind gvk;
    if (const auto* o = opt_object(req, "kind", path)) {
        const std::string at = path + ".kind";
        gvk.group = opt_string(*o, "group", at);
        gvk.version = opt_string(*o, "version", at);
        gvk.kind = opt_string(*o, "kind", at);
    }
    return gvk;
}

GroupVersionResource decode_gvr(const json::object& req, const std::string& path) {
    GroupVersionResource gvr;
    if (const auto* o = opt_object(req, "resource", path)) {
        const std::string at = path + ".resource";
        gvr.group = opt_string(*o, "group", at);
        gvr.version = opt_string(*o, "version", at);
        gvr.resource = opt_string(*o, "resource", at);
    }
    return gvr;
}

json::value object_or_null(const json::object& req, std::string_view key, const std::string& path) {
    const auto* v = field(req, key);
    if (!v) return nullptr;
    if (!v->is_object()) fail(path + "." + std::string(key), "expected an object");
    return *v;
}

std::string cut_warning(const std::string& w) {
    if (w.size() <= kMaxWarningLength) return w;
    std::size_t n = kMaxWarningLength - 3;
    // Never split a UTF-8 sequence: back up to a lead byte.
    while (n > 0 && (static_cast<unsigned char>(w[n]) & 0xC0) == 0x80) --n;
    return w.substr(0, n) + "...";
}

}  // namespace

Result<AdmissionRequest> decode_admission_review(std::string_view body) {
    json::parse_options po;
    po.max_depth = 128;  // pods nest about a dozen levels; leave room, stay bounded
    std::error_code ec;
    json::value doc = json::parse(json::string_view(body.data(), body.size()), ec, json::storage_ptr(), po);
    if (ec) return make_error("invalid_admission_review", "body is not JSON: " + ec.message());
    try {
        const auto& root = as_object(doc, "AdmissionReview");
        const std::string api_version = opt_string(root, "apiVersion", "AdmissionReview");
        if (api_version != kAdmissionApiVersion)
            return make_error("invalid_admission_review",
                              "apiVersion is '" + api_version + "', want '" + std::string(kAdmissionApiVersion) + "'");
        const std::string kind = opt_string(root, "kind", "AdmissionReview");
        if (kind != "AdmissionReview")
            return make_error("invalid_admission_review", "kind is '" + kind + "', want 'AdmissionReview'");
        const auto* req = opt_object(root, "request", "AdmissionReview");
        if (!req) return make_error("invalid_admission_review", "AdmissionReview has no request");
        const std::string path = "request";
        AdmissionRequest out;
        out.uid = opt_string(*req, "uid", path);
        if (out.uid.empty()) return make_error("invalid_admission_review", "request.uid is missing");
        out.kind = decode_gvk(*req, path);
        out.resource = decode_gvr(*req, path);
        out.sub_resource = opt_string(*req, "subResource", path);
        out.name = opt_string(*req, "name", path);
        out.namespace_ = opt_string(*req, "namespace", path);
        out.operation = opt_string(*req, "operation", path);
        if (const auto* ui = opt_object(*req, "userInfo", path)) out.username = opt_string(*ui, "username", path + ".userInfo");
        out.dry_run = opt_bool(*req, "dryRun", path);
        out.object = object_or_null(*req, "object", path);
        out.old_object = object_or_null(*req, "oldObject", path);
        return out;
    } catch (const DecodeFailure& e) {
        return make_error("invalid_admission_review", e.what());
    }
}

std::string encode_admission_review(const AdmissionResponse& r) {
    json::object resp;
    resp["uid"] = r.uid;
    resp["allowed"] = r.allowed;
    if (!r.patch.empty()) {
        resp["patchType"] = "JSONPatch";
        resp["patch"] = base64_encode(json::serialize(r.patch));
    }
    if (!r.warnings.empty()) {
        json::array w;
        for (const auto& s : r.warnings) w.push_back(json::string(cut_warning(s)));
        resp["warnings"] = std::move(w);
    }
    if (!r.allowed || r.status_code != 0) {
        json::object st;
        st["code"] = r.status_code;
        st["message"] = r.status_message;
        resp["status"] = std::move(st);
    }
    json::object root;
    root["apiVersion"] = kAdmissionApiVersion;
    root["kind"] = "AdmissionReview";
    root["response"] = std::move(resp);
    return json::serialize(root);
}

}  // namespace attune::core
