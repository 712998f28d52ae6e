// `hetprobe show FILE`: the table of a results file (interference, notify or
// clock), e.g. of a run that was killed and resumed, or one from another
// node. Tolerates an incomplete last line.
#include <cstdio>
#include <memory>

#include "command.hpp"
#include "hetprobe/errors.hpp"
#include "hetprobe/interference_table.hpp"
#include "hetprobe/notify_table.hpp"

namespace hetprobe::cli {

CommandFn add_show_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  CLI::App* c = app.add_subcommand("show", "Print the table of a results file (JSON Lines) of interference, notify or clock");
  c->add_option("file", *path, "Results file")->required();
  return [path](const std::vector<std::string>&) {
    const ResultsFile file = read_results(*path);
    const std::string probe = file.records.empty() ? "" : file.records.front().value("probe", "");
    if (probe == "notify" || probe == "clock") {
      std::vector<Json> rest(file.records.begin() + 1, file.records.end());
      if (probe == "notify") print_notify_tables(stdout, file.records.front(), rest);
      else print_clock_table(stdout, file.records.front(), rest);
      if (file.truncated_tail) std::fprintf(stderr, "hetprobe show: ignored an incomplete last line (a killed run)\n");
      return 0;
    }
    InterferenceTable table(stdout);
    const Json* first = nullptr;
    for (const Json& r : file.records) {
      if (r.value("record", "") == "header" && r.value("probe", "") == "interference" && first == nullptr) {
        first = &r;
        table.print_heading(r);
      } else if (first != nullptr && r.value("record", "") == "point") {
        table.print_row(r);
      }
    }
    if (first == nullptr) throw usage_error(*path + " holds no interference, notify or clock results");
    table.print_footer(*first);
    if (file.truncated_tail) std::fprintf(stderr, "hetprobe show: ignored an incomplete last line (a killed run)\n");
    return 0;
  };
}

}  // namespace hetprobe::cli
