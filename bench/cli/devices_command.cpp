// `hetprobe devices`: the backends this binary carries, their devices and the
// writer launch shapes, so a user sees what --device auto would pick and why.
#include <cstdio>
#include <memory>

#include "bench/cli/command.hpp"
#include "bench/core/results.hpp"
#include "probes/device/device.hpp"
#include "probes/writer/writer_engine.hpp"

namespace hetprobe::cli {

namespace {

Json describe(const BackendEntry& b) {
  const DeviceCount count = b.count();
  const int n = count.devices;
  Json j{{"backend", b.name},
         {"devices", n},
         {"why_none", count.why_none.empty() ? Json(nullptr) : Json(count.why_none)}};
  Json list = Json::array();
  for (int i = 0; i < n; ++i) {
    const auto d = b.open(i);
    const DeviceInfo& info = d->info();
    const auto writer = d->make_writer_engine();
    const WriterShape stream = writer->shape(Access::stream), stacked = writer->shape(Access::stacked);
    Json placements = Json::array(), mechanisms = Json::array();
    for (FlagPlacement p : info.flag_placements) placements.push_back(to_string(p));
    for (LaunchMechanism m : info.launch_mechanisms) mechanisms.push_back(to_string(m));
    list.push_back({{"ordinal", i},
                    {"name", info.name},
                    {"pci_bus_id", info.pci_bus_id},
                    {"driver_version", info.driver_version},
                    {"runtime_version", info.runtime_version},
                    {"multiprocessors", info.multiprocessors},
                    {"max_threads_per_block", info.max_threads_per_block},
                    {"timer_hz_measured", info.timer_hz},
                    {"stream_shape", {stream.blocks, stream.threads_per_block}},
                    {"stacked_shape", {stacked.blocks, stacked.threads_per_block}},
                    {"capabilities",
                     {{"timer_counts_ns", info.timer_counts_ns},
                      {"cooperative_launch", info.cooperative_launch},
                      {"host_coherence_kinds", info.host_coherence_kinds},
                      {"copy_engine", info.copy_engine},
                      {"flag_placements", placements},
                      {"launch_mechanisms", mechanisms}}}});
  }
  j["list"] = list;
  return j;
}

}  // namespace

Json devices_report() {
  Json all = Json::array();
  for (const auto& b : compiled_backends()) all.push_back(describe(b));
  std::string why;
  const auto chosen = open_device("auto", 0, &why);
  return {{"backends", all}, {"auto", chosen->info().backend}, {"auto_reason", why}};
}

CommandFn add_devices_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* c = app.add_subcommand("devices",
                                   "List the backends built in, their devices, and what --device auto picks");
  c->add_flag("--json", *json, "Print JSON instead of text");
  return [json](const std::vector<std::string>&) {
    const Json report = devices_report();
    if (*json) {
      std::printf("%s\n", report.dump(2).c_str());
      return 0;
    }
    for (const Json& b : report["backends"]) {
      std::printf("%-5s %d device(s)%s\n", b["backend"].get<std::string>().c_str(), b["devices"].get<int>(),
                  b["why_none"].is_string() ? (": " + b["why_none"].get<std::string>()).c_str() : "");
      for (const Json& d : b["list"])
        std::printf(
            "  [%d] %s%s, %d multiprocessors, %d threads/block max, timer %.6g Hz, "
            "writer shapes: stream %dx%d, stacked %dx%d\n",
            d["ordinal"].get<int>(), d["name"].get<std::string>().c_str(),
            d["pci_bus_id"].get<std::string>().empty() ? "" : (" " + d["pci_bus_id"].get<std::string>()).c_str(),
            d["multiprocessors"].get<int>(), d["max_threads_per_block"].get<int>(),
            d["timer_hz_measured"].get<double>(), d["stream_shape"][0].get<int>(), d["stream_shape"][1].get<int>(),
            d["stacked_shape"][0].get<int>(), d["stacked_shape"][1].get<int>());
    }
    std::printf("--device auto -> %s (%s)\n", report["auto"].get<std::string>().c_str(),
                report["auto_reason"].get<std::string>().c_str());
    return 0;
  };
}

}  // namespace hetprobe::cli
