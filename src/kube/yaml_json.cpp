#include <attune/kube/yaml_json.hpp>

#include <boost/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace attune::kube {

namespace {

bool iequals(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

// Would a plain YAML scalar with this text be read as something other than
// a string (number, bool, null), or is it otherwise unsafe unquoted?
bool needs_quotes(std::string_view s) {
    if (s.empty()) return true;
    static constexpr std::string_view kWords[] = {"true", "false", "yes", "no", "on", "off", "null", "~", "y", "n"};
    for (auto w : kWords)
        if (iequals(s, w)) return true;
    double d = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
    if (ec == std::errc{} && p == s.data() + s.size()) return true;
    if (s.find_first_of(":#{}[],&*!|>'\"%@`\n") != std::string_view::npos) return true;
    if (s.front() == ' ' || s.back() == ' ' || s.front() == '-' || s.front() == '?') return true;
    return s.find('.') != std::string_view::npos && std::all_of(s.begin(), s.end(), [](char c) {
               return std::isdigit(static_cast<unsigned char>(c)) || c == '.';
           });
}

void emit_yaml(YAML::Emitter& e, const boost::json::value& v) {
    switch (v.kind()) {
        case boost::json::kind::object:
            e << YAML::BeginMap;
            for (const auto& kv : v.get_object()) {
                e << YAML::Key;
                const std::string k(kv.key());
                if (needs_quotes(k)) e << YAML::DoubleQuoted;
                e << k << YAML::Value;
                emit_yaml(e, kv.value());
            }
            e << YAML::EndMap;
            break;
        case boost::json::kind::array:
            e << YAML::BeginSeq;
            for (const auto& x : v.get_array()) emit_yaml(e, x);
            e << YAML::EndSeq;
            break;
        case boost::json::kind::string: {
            const std::string s(v.get_string());
            if (needs_quotes(s)) e << YAML::DoubleQuoted;
            e << s;
            break;
        }
        case boost::json::kind::bool_: e << (v.get_bool() ? "true" : "false"); break;
        case boost::json::kind::null: e << YAML::Null; break;
        default: e << boost::json::serialize(v); break;
    }
}

}  // namespace

// Quoted scalars stay strings, plain ones become null, booleans or
// numbers when they read as such (YAML 1.2 core schema).
boost::json::value yaml_to_json(const YAML::Node& n) {
    switch (n.Type()) {
        case YAML::NodeType::Map: {
            boost::json::object o;
            for (const auto& kv : n) o[kv.first.as<std::string>()] = yaml_to_json(kv.second);
            return o;
        }
        case YAML::NodeType::Sequence: {
            boost::json::array a;
            for (const auto& item : n) a.push_back(yaml_to_json(item));
            return a;
        }
        case YAML::NodeType::Scalar: {
            const std::string text = n.Scalar();
            if (n.Tag() != "?") return boost::json::value(text);  // quoted or tagged
            if (text == "null" || text == "~" || text == "Null" || text == "NULL") return nullptr;
            if (text == "true" || text == "True" || text == "TRUE") return true;
            if (text == "false" || text == "False" || text == "FALSE") return false;
            boost::system::error_code ec;
            auto num = boost::json::parse(text, ec);
            if (!ec && num.is_number()) return num;
            return boost::json::value(text);
        }
        default: return nullptr;
    }
}

core::Result<std::vector<boost::json::value>> parse_yaml_documents(std::string_view text) {
    std::vector<boost::json::value> out;
    try {
        for (const auto& doc : YAML::LoadAll(std::string(text)))
            if (doc && !doc.IsNull()) out.push_back(yaml_to_json(doc));
    } catch (const YAML::Exception& e) {
        return core::make_error("invalid_yaml", e.what());
    }
    return out;
}

std::string to_yaml(const boost::json::value& v) {
    YAML::Emitter e;
    e.SetIndent(2);
    e.SetSeqFormat(YAML::Block);
    e.SetMapFormat(YAML::Block);
    emit_yaml(e, v);
    std::string out = e.c_str();
    if (out.empty() || out.back() != '\n') out += "\n";
    return out;
}

}  // namespace attune::kube
