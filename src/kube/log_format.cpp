#include <attune/kube/log_format.hpp>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <ctime>
#include <utility>
#include <vector>

namespace attune::kube {
namespace json = boost::json;

namespace {
bool key_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-'; }

// Parses `k=v k2="v 2"` from `s`; false when anything does not fit.
bool parse_pairs(std::string_view s, std::vector<std::pair<std::string, std::string>>& out) {
    std::size_t i = 0;
    while (i < s.size()) {
        if (s[i] == ' ') {
            ++i;
            continue;
        }
        const auto k0 = i;
        while (i < s.size() && key_char(s[i])) ++i;
        if (i == k0 || i >= s.size() || s[i] != '=') return false;
        std::string key(s.substr(k0, i - k0));
        ++i;
        std::string value;
        if (i < s.size() && s[i] == '"') {
            ++i;
            bool closed = false;
            while (i < s.size()) {
                if (s[i] == '\\' && i + 1 < s.size()) {
                    value += s[i + 1];
                    i += 2;
                } else if (s[i] == '"') {
                    ++i;
                    closed = true;
                    break;
                } else {
                    value += s[i++];
                }
            }
            if (!closed || (i < s.size() && s[i] != ' ')) return false;
        } else {
            const auto v0 = i;
            while (i < s.size() && s[i] != ' ') ++i;
            value = std::string(s.substr(v0, i - v0));
        }
        out.emplace_back(std::move(key), std::move(value));
    }
    return true;
}
}  // namespace

std::string json_log_line(std::string_view timestamp, std::string_view level, std::string_view message) {
    json::object o;
    o["ts"] = timestamp;
    o["level"] = level;
    // The free text ends where the first " key=" begins and the rest parses.
    std::size_t split = std::string_view::npos;
    for (std::size_t i = 0; i < message.size(); ++i) {
        if (message[i] != ' ') continue;
        std::size_t j = i + 1;
        while (j < message.size() && key_char(message[j])) ++j;
        if (j > i + 1 && j < message.size() && message[j] == '=') {
            std::vector<std::pair<std::string, std::string>> pairs;
            if (parse_pairs(message.substr(i + 1), pairs)) {
                split = i;
                o["msg"] = message.substr(0, i);
                for (auto& [k, v] : pairs) {
                    if (k == "ts" || k == "level" || k == "msg") k = "field." + k;
                    o[k] = v;
                }
            }
            break;
        }
    }
    if (split == std::string_view::npos) o["msg"] = message;
    return json::serialize(o);
}

namespace {
class JsonFormatter final : public spdlog::formatter {
public:
    void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
        const auto t = std::chrono::system_clock::to_time_t(msg.time);
        const auto ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(msg.time.time_since_epoch()).count() % 1000;
        std::tm tm{};
        gmtime_r(&t, &tm);
        char ts[40];
        const auto n = std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
        std::snprintf(ts + n, sizeof ts - n, ".%03dZ", static_cast<int>(ms));
        const auto lvl = spdlog::level::to_string_view(msg.level);
        const auto line = json_log_line(ts, std::string_view(lvl.data(), lvl.size()),
                                        std::string_view(msg.payload.data(), msg.payload.size()));
        dest.append(line.data(), line.data() + line.size());
        dest.push_back('\n');
    }
    std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<JsonFormatter>(); }
};
}  // namespace

void setup_logging(std::string_view format, std::string_view level) {
    auto logger = std::make_shared<spdlog::logger>("attune", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    if (format == "json") logger->set_formatter(std::make_unique<JsonFormatter>());
    else logger->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %^%l%$ %v", spdlog::pattern_time_type::utc);
    logger->set_level(spdlog::level::from_str(std::string(level)));
    logger->flush_on(spdlog::level::info);
    spdlog::set_default_logger(std::move(logger));
}

}  // namespace attune::kube
