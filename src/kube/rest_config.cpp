#include <attune/kube/rest_config.hpp>

#include <attune/http/url.hpp>

#include <fstream>
#include <sstream>

namespace attune::kube {

std::shared_ptr<TokenSource> TokenSource::fixed(std::string token) {
    auto t = std::shared_ptr<TokenSource>(new TokenSource());
    t->token_ = std::move(token);
    return t;
}

std::shared_ptr<TokenSource> TokenSource::from_file(std::filesystem::path path, std::chrono::seconds refresh,
                                                    bool reread_when_changed) {
    auto t = std::shared_ptr<TokenSource>(new TokenSource());
    t->path_ = std::move(path);
    t->refresh_ = refresh;
    t->watch_mtime_ = reread_when_changed;
    if (!t->reread()) throw ConfigError("token file " + t->path_.string() + ": cannot read a non-empty token");
    t->read_at_ = Clock::now();
    return t;
}

std::filesystem::file_time_type TokenSource::mtime() const {
    std::error_code ec;
    const auto t = std::filesystem::last_write_time(path_, ec);
    return ec ? std::filesystem::file_time_type{} : t;
}

bool TokenSource::reread() {
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

bool TokenSource::force_reread() { return !path_.empty() && reread(); }

const std::string& TokenSource::current(Clock::time_point now) {
    if (path_.empty()) return token_;
    if (now - read_at_ >= refresh_ || (watch_mtime_ && mtime() != mtime_)) {
        reread();  // on failure the previous token stays in use
        read_at_ = now;
    }
    return token_;
}

boost::asio::awaitable<CredentialResult> TokenSource::get(boost::asio::any_io_executor, Clock::time_point) {
    CredentialResult r;
    const auto& t = current(Clock::now());
    r.value = Credential{t, {}, {}, generation_};
    co_return r;
}

bool TokenSource::refused(std::uint64_t generation) {
    if (generation != generation_) return true;  // already re-read since that request
    const auto before = generation_;
    force_reread();
    read_at_ = Clock::now();
    return generation_ != before;
}

void parse_server_url(std::string_view url, RestConfig& out) {
    http::ServerUrl u;
    try {
        u = http::split_server_url(url);
    } catch (const std::invalid_argument& e) {
        throw ConfigError(e.what());
    }
    if (u.scheme != "https") throw ConfigError("server URL '" + std::string(url) + "': only https:// is supported");
    out.host = std::move(u.host);
    out.port = std::move(u.port);
    out.path_prefix = std::move(u.path_prefix);
}

}  // namespace attune::kube
