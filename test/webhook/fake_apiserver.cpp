#include "fake_apiserver.hpp"

#include "../runtime/test_certs.hpp"

#include <attune/core/util/json_patch.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/json.hpp>

namespace attune::test {
namespace json = boost::json;

namespace {
http::ServerReply status(unsigned code, const std::string& reason, const std::string& message) {
    json::object s{{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"},
                   {"code", code},     {"reason", reason},   {"message", message}};
    return http::ServerReply(code, "application/json", json::serialize(s));
}

std::string name_of(const json::value& obj) {
    const auto* md = obj.as_object().if_contains("metadata");
    if (!md || !md->is_object()) return {};
    const auto* n = md->as_object().if_contains("name");
    return n && n->is_string() ? std::string(n->get_string()) : std::string();
}

std::string rv_of(const json::value& obj) {
    const auto* md = obj.as_object().if_contains("metadata");
    if (!md || !md->is_object()) return {};
    const auto* n = md->as_object().if_contains("resourceVersion");
    return n && n->is_string() ? std::string(n->get_string()) : std::string();
}
}  // namespace

FakeApiserver::FakeApiserver(boost::asio::io_context& io) {
    http::ServerOptions o;
    o.required_content_type.clear();  // merge and JSON patches too, as the apiserver takes them
    server_ = std::make_unique<http::HttpsServer>(
        io.get_executor(), [this](const http::ServerRequest& r) { return handle(r); }, o);
    server_->set_certificate(pki().server_cert_pem, pki().server_key_pem);
    server_->listen("127.0.0.1", "0");
    boost::asio::co_spawn(io, server_->run(), boost::asio::detached);
}

std::string FakeApiserver::bump() { return std::to_string(++rv_); }

void FakeApiserver::put(const std::string& path, json::value obj) {
    obj.as_object()["metadata"].as_object()["resourceVersion"] = bump();
    objects_[path] = std::move(obj);
}

const json::value* FakeApiserver::get(const std::string& path) const {
    auto it = objects_.find(path);
    return it == objects_.end() ? nullptr : &it->second;
}

void FakeApiserver::fail_next(const std::string& method, const std::string& path, unsigned code) {
    failures_[{method, path}] = code;
}

int FakeApiserver::count(const std::string& method, const std::string& prefix) const {
    int n = 0;
    for (const auto& c : calls_)
        if (c.method == method && c.path.rfind(prefix, 0) == 0) ++n;
    return n;
}

http::ServerReply FakeApiserver::handle(const http::ServerRequest& r) {
    const std::string method(r.method);
    std::string path(r.target.substr(0, r.target.find('?')));
    if (before) before(method, path);
    auto reply = [&]() -> http::ServerReply {
        if (auto f = failures_.find({method, path}); f != failures_.end()) {
            const unsigned code = f->second;
            failures_.erase(f);
            return status(code, "InternalError", "injected failure");
        }
        if (method == "GET") {
            auto it = objects_.find(path);
            if (it == objects_.end()) return status(404, "NotFound", path + " not found");
            return http::ServerReply(200, "application/json", json::serialize(it->second));
        }
        std::error_code ec;
        json::value body = json::parse(std::string(r.body), ec);
        if (ec) return status(400, "BadRequest", "body is not JSON");
        if (method == "POST") {
            const std::string obj_path = path + "/" + name_of(body);
            if (objects_.count(obj_path)) return status(409, "AlreadyExists", obj_path + " already exists");
            put(obj_path, body);
            return http::ServerReply(201, "application/json", json::serialize(objects_[obj_path]));
        }
        auto it = objects_.find(path);
        if (it == objects_.end()) return status(404, "NotFound", path + " not found");
        if (method == "PUT") {
            if (rv_of(body) != rv_of(it->second)) return status(409, "Conflict", "the object has been modified");
            put(path, body);
            return http::ServerReply(200, "application/json", json::serialize(objects_[path]));
        }
        if (method == "PATCH") {
            if (!body.is_array()) return status(400, "BadRequest", "not a JSON Patch");
            auto applied = core::apply_json_patch(it->second, body.as_array());
            if (!applied.ok()) return status(422, "Invalid", applied.error().message);
            put(path, std::move(applied).value());
            return http::ServerReply(200, "application/json", json::serialize(objects_[path]));
        }
        return status(405, "MethodNotAllowed", method);
    }();
    calls_.push_back({method, path, reply.status});
    return reply;
}

}  // namespace attune::test
