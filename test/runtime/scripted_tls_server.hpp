#pragma once
// A tiny HTTPS (or, in mode::plain, HTTP) server on 127.0.0.1 for behaviour
// tests: each incoming request takes the next scripted reply, which can
// delay, drip, stop mid-body, reset the connection or hang. Every request is
// recorded with its arrival time.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>

#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace attune::test {

struct ScriptedReply {
    enum class Then { KeepOpen, Close, Reset, Hang };
    // Pieces written in order, each after its delay.
    std::vector<std::pair<std::chrono::milliseconds, std::string>> pieces;
    Then after = Then::KeepOpen;

    static ScriptedReply http(unsigned status, std::string body, std::vector<std::string> extra_headers = {},
                              Then after = Then::KeepOpen);
    // Status JSON body, like the apiserver's errors.
    static ScriptedReply status(unsigned code, std::string reason, std::string message,
                                std::vector<std::string> extra_headers = {});
    // A 200 watch response whose body is `lines` and then EOF (connection close).
    static ScriptedReply watch_stream(std::vector<std::string> lines, std::chrono::milliseconds gap = {});
};

struct RecordedRequest {
    std::string method;
    std::string target;
    std::string head;  // request line + headers
    std::string body;
    std::chrono::steady_clock::time_point at;
    int connection = 0;  // index of the TCP connection it came on
    std::string client_cn;  // CN of the client certificate presented (require_client_certificate)
};

class ScriptedTlsServer {
public:
    enum class Mode { Normal, NoHandshake, Plain };

    // mode::plain ignores the certificate and key.
    ScriptedTlsServer(boost::asio::io_context& io, const std::string& cert_pem, const std::string& key_pem,
                      Mode m = Mode::Normal);
    ~ScriptedTlsServer();

    void script(ScriptedReply r) { replies_->push_back(std::move(r)); }
    // Asks every new connection for a client certificate signed by `ca_pem`
    // (a connection without one still gets in; its requests have no client_cn).
    void request_client_certificate(const std::string& ca_pem);
    unsigned short port() const { return port_; }
    const std::vector<RecordedRequest>& requests() const { return *requests_; }
    int connections() const { return *connections_; }
    void stop();

private:
    struct State;
    boost::asio::io_context& io_;
    std::shared_ptr<boost::asio::ssl::context> ctx_;
    std::shared_ptr<boost::asio::ip::tcp::acceptor> acceptor_;
    std::shared_ptr<std::deque<ScriptedReply>> replies_;
    std::shared_ptr<std::vector<RecordedRequest>> requests_;
    std::shared_ptr<int> connections_;
    unsigned short port_ = 0;
    Mode mode_;
};

}  // namespace attune::test
