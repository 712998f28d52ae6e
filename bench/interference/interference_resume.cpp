#include "bench/interference/interference_resume.hpp"

#include "base/errors.hpp"
#include "bench/interference/interference.hpp"
#include "bench/interference/interference_table.hpp"

namespace hetprobe {

namespace {

// Which payloads a config's receiver checks, which a resumed file must share
// with this run (a file holds one payload check): files from before
// payload_check checked every one, or none with --no-check (check_payload).
Json payload_check_of(const Json& config) {
  if (const auto it = config.find("payload_check"); it != config.end()) return *it;
  const auto check = config.find("check_payload");
  if (check == config.end() || !check->is_boolean()) return nullptr;
  return check->get<bool>() ? to_string(PayloadCheck::every_send) : to_string(PayloadCheck::none);
}

void check_header(const RecordRef& h, const Json& config, const std::string& backend, const std::string& name) {
  const Json& stored = field_json(h, "config");
  if (!stored.is_object()) bad_field(h, "config", "an object");
  for (const char* key : kComparableSettings) {
    const auto it = stored.find(key);
    const Json was = it == stored.end() ? Json() : *it;
    const auto now = config.find(key);
    if (now == config.end() || was != *now)
      throw usage_error("--resume: " + name + " was written with " + key + " = " + was.dump() + ", this run has " +
                        (now == config.end() ? std::string("null") : now->dump()));
  }
  if (payload_check_of(stored) != payload_check_of(config))
    throw usage_error("--resume: " + name + " was written with payload_check = " + payload_check_of(stored).dump() +
                      ", this run has " + payload_check_of(config).dump());
  const std::string had = field<std::string>(h, "backend");
  if (had != backend) throw usage_error("--resume: " + name + " was measured on the " + had + " backend");
}

}  // namespace

PointKey point_key(const RecordRef& r) {
  const std::string layout_name = field<std::string>(r, "layout");
  const std::string access = field<std::string>(r, "access");
  if (access != "stream" && access != "stacked") bad_field(r, "access", "stream or stacked");
  Layout layout = Layout::SSB;
  try {
    layout = parse_layout(layout_name);
  } catch (const Error&) {
    bad_field(r, "layout", "SSB, PSB, PCB, P2AB or OWN");
  }
  // Files from before the load kinds gain them on reading (bench/core/record_upgrade.cpp).
  PointKey k{field<std::uint64_t>(r, "size_bytes"),
             layout,
             access == "stream" ? Access::stream : Access::stacked,
             LoadKind::none,
             0,
             std::nullopt};
  const std::string kind = field<std::string>(r, "load_kind");
  try {
    k.load = parse_load_kind(kind);
  } catch (const Error&) {
    bad_field(r, "load_kind", "write, read, poll, copy-d2h, copy-h2d or none");
  }
  k.gpus = field<int>(r, "load_gpus");
  const Json& rate = field_json(r, "load_rate");
  if (!rate.is_null() && !rate.is_string()) bad_field(r, "load_rate", "a rate label (a string) or null");
  if (rate.is_string()) {
    try {
      k.rate = parse_load_rate(rate.get<std::string>());  // found again by its value, however it was written
    } catch (const Error&) {
      bad_field(r, "load_rate", "a load rate such as 1, 0.5, 50% or 12GB/s");
    }
  }
  return k;
}

ResumedPoints resumed_points(const ResultsFile& file, const Json& config, const std::string& backend) {
  ResumedPoints out;
  const std::string name = file.path.string();
  std::size_t header = file.records.size();  // the last header's index
  for (std::size_t i = 0; i < file.records.size(); ++i) {
    const RecordRef r{file.records[i], file.place(i)};
    const std::string kind = field_or<std::string>(r, "record", "");
    if (kind == "header") {
      header = i;
      continue;
    }
    if (kind != "point") continue;
    try {
      const PointKey k = point_key(r);
      (void)interference_row(r);  // every field `hetprobe show` reads
      out.done.insert(k);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::usage) throw;
      throw usage_error(std::string("--resume: ") + e.what() +
                        ". This point record is damaged: delete its line to "
                        "measure the point again, or choose another --out");
    }
  }
  if (header == file.records.size() || file.probe() != "interference")
    throw usage_error("--resume: " + name + " is not an interference results file");
  check_header({file.records[header], file.place(header)}, config, backend, name);
  return out;
}

}  // namespace hetprobe
