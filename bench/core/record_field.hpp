// Checked access to the fields of a results record read back from a file. A
// field that is missing or of another type is the file's fault, not a crash:
// it throws a usage Error naming where the record came from and the field,
// e.g. "run.jsonl:12: field 'send_time_ns.median': expected a number, got string".
// Paths are dotted ("a.b" is field b of object a). Never use the JSON
// library's const operator[] on a record read back: it is undefined on a
// missing key.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench/core/results.hpp"

namespace hetprobe {

// A record and where it came from ("FILE:LINE", or a description of a record
// made in this process, for which a failure is a bug).
struct RecordRef {
  const Json& json;
  std::string place;
};

// The value at `path` (possibly null), or nullptr when it is absent or an
// object on the way is absent or null (a summary of no samples is null).
// Anything else on the way that is not an object is an error.
const Json* find_field(const RecordRef& r, std::string_view path);

// The value at `path`, which must be present (it may be null).
const Json& field_json(const RecordRef& r, std::string_view path);

// The field at `path` as T, which must be present and of T's JSON type:
// double (any number), int and std::int64_t (a whole number in range),
// std::uint64_t (a non-negative whole number), bool, std::string.
template <class T>
T field(const RecordRef& r, std::string_view path);

// As field<T>, but `fallback` when the field is absent or null (files from
// before the field existed, or a quantity that does not apply).
template <class T>
T field_or(const RecordRef& r, std::string_view path, T fallback);

// A number, or null when the field is absent or null; anything else is an error.
Json number_or_null(const RecordRef& r, std::string_view path);

// The list of numbers at `path`, which must be present; anything else is an
// error that says what was `expected` ("a list of numbers (GB/s)").
std::vector<double> number_list(const RecordRef& r, std::string_view path, const std::string& expected);

// The record's "warnings" (a list of sentences); empty when it has none.
std::vector<std::string> record_warnings(const RecordRef& r);

// The usage Error for a field of the wrong type (for checks field<T> cannot express).
[[noreturn]] void bad_field(const RecordRef& r, std::string_view path, const std::string& expected);

}  // namespace hetprobe
