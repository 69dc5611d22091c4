#include "doctor_report.hpp"

#include "output.hpp"

#include <algorithm>

namespace attune::cli {

doctor_row make_row(std::string name, bool required, doctor_status status, std::string detail) {
    doctor_row r;
    r.name = std::move(name);
    r.required = required;
    r.status = status;
    r.detail = std::move(detail);
    return r;
}

std::string join_names(const std::vector<std::string>& names, std::size_t max_shown, std::string_view sep) {
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < max_shown; ++i) out += (i ? std::string(sep) : "") + names[i];
    if (names.size() > max_shown) out += " and " + std::to_string(names.size() - max_shown) + " more";
    return out;
}

std::string_view status_label(doctor_status s) noexcept {
    switch (s) {
        case doctor_status::ok: return "ok";
        case doctor_status::warn: return "WARN";
        case doctor_status::fail: return "FAIL";
    }
    return "FAIL";
}

std::string render_doctor_table(std::span<const doctor_row> rows, bool colour_on) {
    std::string out;
    for (const auto& r : rows) {
        // %-22s %-4s [%s] %s, with the padding computed on the plain word so
        // colour codes do not shift the columns.
        std::string name = r.name;
        if (name.size() < 22) name.append(22 - name.size(), ' ');
        const std::string_view word = status_label(r.status);
        const std::string pad(word.size() < 4 ? 4 - word.size() : 0, ' ');
        const colour c = r.status == doctor_status::ok     ? colour::green
                         : r.status == doctor_status::warn ? colour::yellow
                                                           : colour::red;
        out += name + " " + paint(c, word, colour_on) + pad + " [" + (r.required ? "required" : "optional") + "] " +
               r.detail + "\n";
    }
    return out;
}

bool doctor_failed(std::span<const doctor_row> rows) noexcept {
    return std::any_of(rows.begin(), rows.end(),
                       [](const doctor_row& r) { return r.required && r.status == doctor_status::fail; });
}

boost::json::object doctor_json(std::span<const doctor_row> rows) {
    boost::json::array arr;
    for (const auto& r : rows) {
        boost::json::object o;
        o["name"] = r.name;
        o["status"] = status_label(r.status);
        o["required"] = r.required;
        o["detail"] = r.detail;
        arr.push_back(std::move(o));
    }
    boost::json::object out;
    out["rows"] = std::move(arr);
    out["failed"] = doctor_failed(rows);
    return out;
}

}  // namespace attune::cli
