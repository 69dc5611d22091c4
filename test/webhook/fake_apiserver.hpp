#pragma once
// A small stateful stand-in for the apiserver, for the certificate keeper's
// tests (test double, not product): objects by path, resourceVersions,
// create (409 AlreadyExists), update (409 on a stale resourceVersion), JSON
// Patch with `test`, and hooks that run before a request is answered so a
// test can play "another replica wrote first".
#include <attune/http/https_server.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/json/value.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace attune::test {

class FakeApiserver {
public:
    explicit FakeApiserver(boost::asio::io_context& io);

    unsigned short port() const { return server_->port(); }

    // Objects by path (/api/v1/namespaces/ns/secrets/name).
    void put(const std::string& path, boost::json::value obj);
    const boost::json::value* get(const std::string& path) const;

    // Called with (method, path) before the request is handled.
    std::function<void(const std::string& method, const std::string& path)> before;
    // Answer this status (with a Status body) to the next request matching method+path.
    void fail_next(const std::string& method, const std::string& path, unsigned status);

    struct Call {
        std::string method;
        std::string path;
        unsigned status = 0;
    };
    const std::vector<Call>& calls() const { return calls_; }
    int count(const std::string& method, const std::string& path_prefix) const;

private:
    http::ServerReply handle(const http::ServerRequest& r);
    std::string bump();

    std::unique_ptr<http::HttpsServer> server_;
    std::map<std::string, boost::json::value> objects_;
    std::map<std::pair<std::string, std::string>, unsigned> failures_;
    std::vector<Call> calls_;
    long long rv_ = 100;
};

}  // namespace attune::test
