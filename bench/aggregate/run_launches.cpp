#include "bench/aggregate/run_launches.hpp"

#include <map>
#include <regex>

#include "bench/core/launches.hpp"

namespace hetprobe {

namespace {

bool is_header(const Json& r) { return r.is_object() && r.value("record", Json()) == "header"; }
bool resumed(const Json& header) { return header.value("resumed", Json()) == true; }

}  // namespace

StepLaunch split_launch(const std::filesystem::path& file) {
  static const std::regex launch_name(R"((.+)\.launch([1-9][0-9]{0,8}))");
  std::string stem = file.filename().string();
  for (const std::string suffix : {".jsonl.gz", ".jsonl", ".txt", ".log"})
    if (stem.size() > suffix.size() && stem.ends_with(suffix)) {
      stem.resize(stem.size() - suffix.size());
      break;
    }
  std::smatch m;
  if (std::regex_match(stem, m, launch_name)) return {m[1].str(), std::stoi(m[2].str())};
  return {stem, 1};
}

std::string launch_file_stem(const std::string& step, int launch) {
  return launch == 1 ? step : step + ".launch" + std::to_string(launch);
}

std::vector<Launch> run_launches(const std::vector<ResultsFile>& files, const std::string& probe) {
  std::vector<Launch> out;
  std::map<std::string, std::size_t> series_of;  // launch_identity's text -> series
  std::map<std::size_t, std::size_t> count;      // series -> launches so far
  for (std::size_t f = 0; f < files.size(); ++f) {
    const std::vector<Json>& records = files[f].records;
    const std::string step = split_launch(files[f].path).step;
    Launch* open = nullptr;  // the launch the file's records now belong to
    for (std::size_t i = 0; i < records.size(); ++i) {
      if (!is_header(records[i])) {
        if (open != nullptr) open->end = i + 1;
        continue;
      }
      if (open != nullptr && resumed(records[i])) {  // the same launch, continued
        open->end = i + 1;
        continue;
      }
      open = nullptr;
      if (records[i].value("probe", Json()) != probe) continue;
      const auto [it, fresh] = series_of.emplace(launch_identity(records[i]).dump(), series_of.size());
      out.push_back({step, it->second, ++count[it->second], f, i, i + 1});
      open = &out.back();
    }
  }
  return out;
}

}  // namespace hetprobe
