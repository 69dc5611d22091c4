#include <attune/kube/rest_config.hpp>

#include <attune/http/url.hpp>

#include <fstream>
#include <sstream>

namespace attune::kube {

std::shared_ptr<token_source> token_source::fixed(std::string token) {
    auto t = std::shared_ptr<token_source>(new token_source());
    t->token_ = std::move(token);
    return t;
}

std::shared_ptr<token_source> token_source::from_file(std::filesystem::path path, std::chrono::seconds refresh,
                                                     bool reread_when_changed) {
    auto t = std::shared_ptr<token_source>(new token_source());
    t->path_ = std::move(path);
    t->refresh_ = refresh;
    t->watch_mtime_ = reread_when_changed;
    if (!t->reread()) throw config_error("token file " + t->path_.string() + ": cannot read a non-empty token");
    t->read_at_ = clock::now();
    return t;
}

std::filesystem::file_time_type token_source::mtime() const {
    std::error_code ec;
    const auto t = std::filesystem::last_write_time(path_, ec);
    return ec ? std::filesystem::file_time_type{} : t;
}

bool token_source::reread() {
    const auto seen = watch_mtime_ ? mtime() : std::filesystem::file_time_type{};
    std::ifstream in(path_, std::ios::binary);
    if (!in) return false;
    std::ostringstream ss;
    ss << in.rdbuf();
    std::string s = ss.str();
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
    if (s.empty() || s.find_first_of("\r\n") != std::string::npos) return false;
    if (s != token_) ++generation_;
    token_ = std::move(s);
    mtime_ = seen;
    return true;
}

bool token_source::force_reread() { return !path_.empty() && reread(); }

const std::string& token_source::current(clock::time_point now) {
    if (path_.empty()) return token_;
    if (now - read_at_ >= refresh_ || (watch_mtime_ && mtime() != mtime_)) {
        reread();  // on failure the previous token stays in use
        read_at_ = now;
    }
    return token_;
}

boost::asio::awaitable<credential_result> token_source::get(boost::asio::any_io_executor, clock::time_point) {
    credential_result r;
    const auto& t = current(clock::now());
    r.value = credential{t, {}, {}, generation_};
    co_return r;
}

bool token_source::refused(std::uint64_t generation) {
    if (generation != generation_) return true;  // already re-read since that request
    const auto before = generation_;
    force_reread();
    read_at_ = clock::now();
    return generation_ != before;
}

void parse_server_url(std::string_view url, rest_config& out) {
    http::server_url u;
    try {
        u = http::split_server_url(url);
    } catch (const std::invalid_argument& e) {
        throw config_error(e.what());
    }
    if (u.scheme != "https") throw config_error("server URL '" + std::string(url) + "': only https:// is supported");
    out.host = std::move(u.host);
    out.port = std::move(u.port);
    out.path_prefix = std::move(u.path_prefix);
}

}  // namespace attune::kube
