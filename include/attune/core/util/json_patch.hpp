#pragma once
// RFC 6902 JSON Patch between two JSON documents, for admission responses:
// the webhook edits a copy of the object and answers with the difference,
// so "add" versus "replace" and pointer escaping are decided in one place.
#include <boost/json/array.hpp>
#include <boost/json/value.hpp>
#include <string>
#include <string_view>

#include "attune/core/util/result.hpp"

namespace attune::core {

// RFC 6901 reference token: "~" becomes "~0", then "/" becomes "~1"
// ("attune.io/skip" -> "attune.io~1skip").
std::string escape_json_pointer_token(std::string_view token);

// The operations that turn `before` into `after`:
//  - objects: "add" for a key `before` lacks (an absent map is added whole,
//    never "replace"d, which RFC 6902 refuses on a missing target),
//    "remove" for a key `after` lacks, recursion into keys on both sides;
//  - arrays of equal length: element by element; of different length: one
//    "replace" of the whole array (indexes would shift under us);
//  - anything else that differs: one "replace".
// Empty when the two are equal. Keys come out in `after`'s order, so the
// patch is deterministic.
boost::json::array json_patch_diff(const boost::json::value& before, const boost::json::value& after);

// Applies an RFC 6902 patch (add, remove, replace, move, copy, test).
// Error code "invalid_patch" naming the operation index and pointer when an
// operation is malformed or its target does not exist (the whole patch then
// fails, as RFC 6902 says).
Result<boost::json::value> apply_json_patch(boost::json::value document, const boost::json::array& patch);

}  // namespace attune::core
