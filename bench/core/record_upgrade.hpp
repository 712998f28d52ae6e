// Records of an older schema_version in the current form: the one place in
// C++ that knows what changed between versions (docs/results-schema.md,
// "Versions"), so that every reader of a results file (show, --resume, the
// checks, and Python's reader through the compiled module) reads one form.
#pragma once

#include <string>
#include <vector>

#include "bench/core/results.hpp"

namespace hetprobe {

// Upgrades `records` (one file's, in order: a header gives the version of the
// records after it) in place. Headers keep their schema_version: it says what
// the file was written as (their config is upgraded as the records are). Every step changes only what is still in the
// old form, so a record upgraded twice is the same as one upgraded once.
void upgrade_records(std::vector<Json>& records);

// A header's schema, checked before any upgrade: "schema" is "hetprobe.results"
// and "schema_version" an integer from 1 to kSchemaVersion (a newer hetprobe's
// file, a hand-made one or another tool's is refused, not misread). Returns
// what is wrong, or "" (Python's reader asks it through the compiled module).
std::string schema_problem(const Json& header);

}  // namespace hetprobe
