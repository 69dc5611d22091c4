#pragma once
// Output for every kubectl-attune subcommand, kubectl's way: -o table (the
// default), wide, json or yaml; --no-headers; --sort-by; colour only on a
// terminal. Pure: the functions build strings, main() writes them.
#include <attune/core/util/result.hpp>

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace attune::cli {

enum class OutputFormat { Table, Wide, Json, Yaml };

// -o json or -o yaml: a document for scripts, not a table for people.
constexpr bool is_document_format(OutputFormat f) noexcept {
    return f == OutputFormat::Json || f == OutputFormat::Yaml;
}

// "" and "table" -> table; "wide", "json", "yaml". Error code "bad_usage".
core::Result<OutputFormat> parse_output_format(std::string_view value);

// A cell as people read it, made from the whole record (e.g. an exact
// quantity in millicores, docs/cli.md#numbers-in-text-output).
using CellText = std::string (*)(const boost::json::value& record);

// One table column: the header, and the record field it shows (a dotted path
// into each record, e.g. "status.phase"). Wide-only columns appear with -o wide.
// With `text` the cell is text(record) instead of the field: the record, and
// so -o json|yaml, keeps the exact value, and --sort-by still sorts by it.
struct Column {
    std::string header;
    std::string path;
    bool wide_only = false;
    CellText text = nullptr;
};

struct TableOptions {
    bool wide = false;
    bool no_headers = false;
    // kubectl's --sort-by: a JSONPath into the record (".name", "{.status.phase}")
    // or, as a convenience, a column header. Empty: the given order.
    std::string sort_by;
};

// The order --sort-by puts `records` in (indexes into them), by render_table's
// rule below; the given order when `sort_by` is empty. Error code
// "bad_usage" for an unknown path.
core::Result<std::vector<std::size_t>> sort_order(const boost::json::array& records, std::span<const Column> columns,
                                                  std::string_view sort_by);

// Records are JSON objects. Columns are separated by three spaces, as kubectl
// does; a missing field prints "<none>". Sorting is stable, numeric when both
// values are numbers. Error code "bad_usage" for an unknown --sort-by.
core::Result<std::string> render_table(const boost::json::array& records, std::span<const Column> columns,
                                       const TableOptions& opts);

// -o json|yaml: the document as kubectl prints it; nullopt for table and
// wide, which each command renders itself.
std::optional<std::string> render_document(OutputFormat f, const boost::json::value& doc);

// Indented JSON (two spaces), as kubectl -o json prints it; ends with a newline.
std::string to_pretty_json(const boost::json::value& v);
// Block YAML; strings that YAML would read as another type are quoted.
std::string to_yaml(const boost::json::value& v);

// A dotted path lookup ("status.phase"); nullptr when absent.
const boost::json::value* find_path(const boost::json::value& record, std::string_view path);

// Colour only on a terminal, and never when NO_COLOR is set or TERM is dumb
// (https://no-color.org).
bool colour_enabled(bool is_tty, const char* no_color_env, const char* term_env);

enum class Colour { Red, Yellow, Green, Cyan, Bold };
std::string paint(Colour c, std::string_view text, bool enabled);

}  // namespace attune::cli
