#include "bench/core/record_upgrade.hpp"

#include <string>
#include <utility>
#include <vector>

#include "bench/core/results.hpp"
#include "bench/core/run_header.hpp"

namespace hetprobe {

namespace {

bool is(const Json& r, const char* key, const char* value) {
  const auto it = r.find(key);
  return it != r.end() && it->is_string() && it->get<std::string>() == value;
}

// Version 1 wrote a launch's part size as part_bytes, 0 for one block per
// message; version 2 writes the part size's JSON form ("whole" or bytes).
void launch_parts_v1(Json& launch) {
  if (!launch.is_object()) return;
  const auto it = launch.find("part_bytes");
  if (it == launch.end()) return;
  const Json bytes = *it;
  launch.erase("part_bytes");
  if (!launch.contains("parts"))
    launch["parts"] = bytes.is_number_unsigned() && bytes.get<std::uint64_t>() == 0 ? Json("whole") : bytes;
}

// Version 1 named halo's send mode `send`; version 2 names it send_mode, as
// interference does (one SendMode, one field name).
void rename(Json& object, const char* from, const char* to) {
  const auto it = object.find(from);
  if (it == object.end() || object.contains(to)) return;
  Json value = std::move(*it);
  object.erase(from);
  object[to] = std::move(value);
}

bool starts(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// Version 1 keyed a bandwidth row by its display name alone (`writer`);
// version 2 adds its keys: pass, kind and access, read back from the names
// version 1 wrote ("plain one-pass kernel", "plain read", "stream
// (persistent)", "load read stacked", "load copy-d2h"). A name of none of
// these forms is left without keys (a reader says the record is malformed).
void bandwidth_keys_v1(Json& r) {
  const auto writer = r.find("writer");
  if (writer == r.end() || !writer->is_string() || r.contains("pass")) return;
  const std::string name = writer->get<std::string>();
  std::string pass, kind, access;
  const std::string persistent = " (persistent)";
  if (name == "plain one-pass kernel") {
    pass = "plain", kind = "write";
  } else if (starts(name, "plain ")) {
    pass = "plain", kind = name.substr(6);
  } else if (name.size() > persistent.size() && name.ends_with(persistent)) {
    pass = "persistent", kind = "write", access = name.substr(0, name.size() - persistent.size());
  } else if (starts(name, "load ")) {
    pass = "load", kind = name.substr(5);
    if (const std::size_t space = kind.find(' '); space != std::string::npos) {
      access = kind.substr(space + 1);
      kind.resize(space);
    }
  } else {
    return;
  }
  r["pass"] = pass;
  if (!r.contains("kind") || r["kind"].is_null()) r["kind"] = kind;
  r["access"] = access.empty() ? Json(nullptr) : Json(access);
}

// Version 1 kept a bandwidth row's samples (gbs) without their summary;
// version 2 writes it (gbs_summary), computed as the probe computes it.
void bandwidth_summary_v1(Json& r) {
  const auto gbs = r.find("gbs");
  if (r.contains("gbs_summary") || gbs == r.end() || !gbs->is_array()) return;
  std::vector<double> values;
  for (const Json& v : *gbs) {
    if (!v.is_number()) return;  // a reader says the record is malformed
    values.push_back(v.get<double>());
  }
  r["gbs_summary"] = summary_json(values);
}

// Version 1 files from before the load kinds had one load, the paper's writer
// on one GPU at full rate (none on SSB), and said what it moved during a send
// only as writer.sender.bandwidth_during_send_gbs; they gain the load's key
// and its load object, as --paper writes them now.
void interference_load_v1(Json& r) {
  if (r.contains("load_kind")) return;
  const bool ssb = is(r, "layout", "SSB");
  r["load_kind"] = ssb ? "none" : "write";
  r["load_gpus"] = ssb ? 0 : 1;
  r["load_rate"] = ssb ? Json(nullptr) : Json("1");
  if (r.contains("load")) return;
  const auto writer = r.find("writer");
  const Json* sender = writer != r.end() && writer->is_object() && writer->contains("sender") ? &(*writer)["sender"]
                                                                                              : nullptr;
  const bool known = sender != nullptr && sender->is_object() && sender->contains("bandwidth_during_send_gbs");
  r["load"] = Json{{"kind", r["load_kind"]},
                   {"gpus", r["load_gpus"]},
                   {"rate", r["load_rate"]},
                   {"paper", !ssb},
                   {"engine", ssb ? Json(nullptr) : Json("paper writer")},
                   {"traffic_during_send_gbs", known ? (*sender)["bandwidth_during_send_gbs"] : Json(nullptr)},
                   {"sender", nullptr},
                   {"receiver", nullptr}};
}

void record_v1(Json& r) {
  if (is(r, "probe", "interference") && is(r, "record", "point")) interference_load_v1(r);
  if (is(r, "probe", "halo") && is(r, "record", "halo")) {
    for (const char* key : {"launch", "unpack_launch"})
      if (const auto it = r.find(key); it != r.end()) launch_parts_v1(*it);
    rename(r, "send", "send_mode");
  }
  if (is(r, "probe", "bandwidth") && is(r, "record", "point")) {
    bandwidth_keys_v1(r);
    bandwidth_summary_v1(r);
  }
}

// Version 2 did not say how MPI carried an interference point's message;
// version 3 writes mpi_path, null in a file from before it.
void record_v2(Json& r) {
  if (is(r, "probe", "interference") && is(r, "record", "point") && !r.contains("mpi_path")) r["mpi_path"] = nullptr;
}

// Version 1 interference files from before the load kinds ran the paper's
// writer and said nothing of it; version 2 writes config.paper.
void header_v1(Json& h) {
  const auto config = h.find("config");
  if (config == h.end() || !config->is_object()) return;
  if (is(h, "probe", "halo")) rename(*config, "send", "send_mode");
  if (is(h, "probe", "interference") && !config->contains("paper")) (*config)["paper"] = !config->contains("loads");
}

// Version 3 wrote interference's load buffers as load_bytes, bytes or the text
// "message size", and the same value again as secondary_bytes (version 1's
// paper runs wrote secondary_bytes alone); version 4 writes load_bytes (bytes,
// or null) and load_bytes_per_message (true: each message's size).
void header_v3(Json& h) {
  const auto config = h.find("config");
  if (!is(h, "probe", "interference") || config == h.end() || !config->is_object()) return;
  Json& c = *config;
  if (!c.contains("load_bytes") && c.contains("secondary_bytes")) c["load_bytes"] = c["secondary_bytes"];
  c.erase("secondary_bytes");
  const auto bytes = c.find("load_bytes");
  if (bytes == c.end() || c.contains("load_bytes_per_message")) return;
  const bool per_message = bytes->is_string() && bytes->get<std::string>() == "message size";
  if (per_message) *bytes = nullptr;
  c["load_bytes_per_message"] = per_message;
}

}  // namespace

std::string schema_problem(const Json& header) {
  const auto schema = header.find("schema");
  if (schema == header.end()) return "a header without \"schema\": not a hetprobe results file";
  if (!schema->is_string() || schema->get<std::string>() != kSchemaName)
    return "schema " + schema->dump() + ": not a hetprobe results file (\"" + std::string(kSchemaName) + "\")";
  const auto version = header.find("schema_version");
  const std::string versions = "this hetprobe reads versions 1 to " + std::to_string(kSchemaVersion);
  if (version == header.end()) return "a header without \"schema_version\" (" + versions + ")";
  if (!version->is_number_integer())
    return "schema_version " + version->dump() + ": not a whole number (" + versions + ")";
  const auto v = version->get<std::int64_t>();
  if (v < 1) return "schema_version " + version->dump() + ": " + versions;
  if (v > kSchemaVersion) return "schema_version " + version->dump() + ": written by a newer hetprobe; " + versions;
  return "";
}

void upgrade_records(std::vector<Json>& records) {
  int version = kSchemaVersion;
  for (Json& r : records) {
    if (is(r, "record", "header")) {
      const auto v = r.find("schema_version");
      version = v != r.end() && v->is_number_integer() ? v->get<int>() : 1;
      if (version < 2) header_v1(r);
      if (version < 4) header_v3(r);
      continue;
    }
    if (version < 2) record_v1(r);
    if (version < 3) record_v2(r);
  }
}

}  // namespace hetprobe
