#include "doctor_report.hpp"

#include "output.hpp"

#include <algorithm>

namespace attune::cli {

DoctorRow make_row(std::string name, bool required, DoctorStatus status, std::string detail) {
    DoctorRow r;
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

std::string_view status_label(DoctorStatus s) noexcept {
    switch (s) {
        case DoctorStatus::Ok: return "ok";
        case DoctorStatus::Warn: return "WARN";
        case DoctorStatus::Fail: return "FAIL";
    }
    return "FAIL";
}

std::string render_doctor_table(std::span<const DoctorRow> rows, bool colour_on) {
    std::string out;
    for (const auto& r : rows) {
        // %-22s %-4s [%s] %s, with the padding computed on the plain word so
        // colour codes do not shift the columns.
        std::string name = r.name;
        if (name.size() < 22) name.append(22 - name.size(), ' ');
        const std::string_view word = status_label(r.status);
        const std::string pad(word.size() < 4 ? 4 - word.size() : 0, ' ');
        const Colour c = r.status == DoctorStatus::Ok     ? Colour::Green
                         : r.status == DoctorStatus::Warn ? Colour::Yellow
                                                          : Colour::Red;
        out += name + " " + paint(c, word, colour_on) + pad + " [" + (r.required ? "required" : "optional") + "] " +
               r.detail + "\n";
    }
    return out;
}

bool doctor_failed(std::span<const DoctorRow> rows) noexcept {
    return std::any_of(rows.begin(), rows.end(),
                       [](const DoctorRow& r) { return r.required && r.status == DoctorStatus::Fail; });
}

boost::json::object doctor_json(std::span<const DoctorRow> rows) {
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
