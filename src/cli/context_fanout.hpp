#pragma once
// --contexts A,B and --all-contexts: a listing command read from several
// kubeconfig contexts, one after the other, into one table with a CONTEXT
// column (the Go plugin's multi-cluster mode). Pure but for
// requested_contexts, which may read the kubeconfig files.
#include "command.hpp"

#include <boost/json/array.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace attune::cli {

std::vector<FlagSpec> context_fanout_flag_specs();

// "a, b,,a" -> {a, b}: trimmed, empty entries and repeats dropped, order kept.
// A value with no name is a usage error.
core::Result<std::vector<std::string>> parse_context_list(std::string_view value);

// The contexts to read, in order: --contexts as given, --all-contexts every
// context of the kubeconfig files (sorted, as `kubectl config get-contexts`).
// Empty when neither flag is set. Usage errors: both flags, either with
// --context or --watch; an unreadable kubeconfig is an error.
core::Result<std::vector<std::string>> requested_contexts(const ParsedFlags& flags, const CommonOptions& common);

// Adds {"context": NAME} to each record.
void tag_records_with_context(boost::json::array& records, const std::string& context);

// CONTEXT first, then `columns`.
std::vector<Column> with_context_column(std::vector<Column> columns);

// What a command printed on stderr for one context, each "error: " line
// naming the context: `error: context "prod": ...`.
std::string name_context_in_errors(std::string_view stderr_text, std::string_view context);

}  // namespace attune::cli
