// The four printers of the table model (table.hpp).
#include "bench/core/table.hpp"

#include <algorithm>

#include "base/errors.hpp"

namespace hetprobe {

namespace {

bool in_text(const Column& c) { return c.shown != Column::Shown::data; }
bool in_data(const Column& c) { return c.shown != Column::Shown::text; }

int text_width(const Column& c) { return std::max(c.width, static_cast<int>(c.name.size())); }

// One text line of cells (or names), padded to the columns' widths; the last
// left-aligned column is not padded (no trailing blanks).
void text_line(std::FILE* out, const Table& t, const std::vector<std::string>& cells) {
  std::string line;
  std::size_t last = 0;
  for (std::size_t i = 0; i < t.columns.size(); ++i)
    if (in_text(t.columns[i])) last = i;
  bool first = true;
  for (std::size_t i = 0; i < t.columns.size(); ++i) {
    const Column& c = t.columns[i];
    if (!in_text(c)) continue;
    if (!first) line.append(static_cast<std::size_t>(c.gap), ' ');
    first = false;
    const std::string& text = cells[i];
    const std::size_t pad = text.size() < static_cast<std::size_t>(text_width(c)) ? text_width(c) - text.size() : 0;
    if (c.align == Column::Align::right) line.append(pad, ' ');
    line += text;
    if (c.align == Column::Align::left && i != last) line.append(pad, ' ');
  }
  line.erase(line.find_last_not_of(' ') + 1);  // an empty last cell leaves no trailing blanks
  std::fprintf(out, "%s\n", line.c_str());
}

std::vector<std::string> names(const Table& t) {
  std::vector<std::string> out;
  for (const Column& c : t.columns) out.push_back(c.name);
  return out;
}

std::vector<std::string> texts(const Table& t, const std::vector<Json>& row) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < t.columns.size(); ++i)
    out.push_back(i < row.size() ? cell_text(t.columns[i], row[i]) : "-");
  return out;
}

void print_text(std::FILE* out, const Report& r) {
  for (const std::string& line : r.about) std::fprintf(out, "# %s\n", line.c_str());
  if (r.tables.empty()) std::fprintf(out, "# no measured records\n");
  for (const Table& t : r.tables) {
    if (!t.title.empty()) std::fprintf(out, "\n");
    for (const std::string& line : t.title) std::fprintf(out, "## %s\n", line.c_str());
    if (t.vertical) {
      int width = 0;
      for (const Column& c : t.columns) width = std::max(width, static_cast<int>(c.name.size()));
      for (std::size_t k = 0; k < t.rows.size(); ++k) {
        if (k > 0) std::fprintf(out, "\n");
        for (std::size_t i = 0; i < t.columns.size(); ++i)
          if (in_text(t.columns[i]))
            std::fprintf(out, "%-*s %s\n", width, t.columns[i].name.c_str(),
                         cell_text(t.columns[i], t.rows[k][i]).c_str());
      }
    } else {
      print_text_header(out, t);
      for (const auto& row : t.rows) print_text_row(out, t, row);
    }
    for (const std::string& line : t.notes) std::fprintf(out, "# %s\n", line.c_str());
  }
}

// RFC 4180: a field with a comma, quote, CR or LF is quoted, quotes doubled.
std::string csv_field(const Json& cell) {
  if (cell.is_null()) return "";
  const std::string text = cell.is_string() ? cell.get<std::string>() : cell.dump();
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted(1, '"');
  for (char ch : text) {
    if (ch == '"') quoted += '"';
    quoted += ch;
  }
  quoted += '"';
  return quoted;
}

// A cell's text in a pipe table: '|' escaped. (Strings are built by appending
// throughout this file: GCC 12 warns falsely (-Wrestrict) on "..." + string.)
std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '|') out += '\\';
    out += ch;
  }
  return out;
}

// A record with many fields: a "field | value" table per row.
void markdown_vertical(std::FILE* out, const Table& t) {
  for (std::size_t k = 0; k < t.rows.size(); ++k) {
    std::fprintf(out, "%s| field | value |\n| --- | ---: |\n", k > 0 ? "\n" : "");
    for (std::size_t i = 0; i < t.columns.size(); ++i)
      if (in_text(t.columns[i]))
        std::fprintf(out, "| %s | %s |\n", markdown_cell(t.columns[i].name).c_str(),
                     markdown_cell(cell_text(t.columns[i], t.rows[k][i])).c_str());
  }
}

void markdown_rows(std::FILE* out, const Table& t) {
  std::string head = "|", rule = "|";
  for (const Column& c : t.columns) {
    if (!in_text(c)) continue;
    head += ' ';
    head += markdown_cell(c.name);
    head += " |";
    rule += c.align == Column::Align::right ? " ---: |" : " --- |";
  }
  std::fprintf(out, "%s\n%s\n", head.c_str(), rule.c_str());
  for (const auto& row : t.rows) {
    std::string line = "|";
    for (std::size_t i = 0; i < t.columns.size(); ++i) {
      if (!in_text(t.columns[i])) continue;
      line += ' ';
      line += markdown_cell(cell_text(t.columns[i], i < row.size() ? row[i] : Json()));
      line += " |";
    }
    std::fprintf(out, "%s\n", line.c_str());
  }
}

void print_markdown(std::FILE* out, const Report& r) {
  for (const std::string& line : r.about) std::fprintf(out, "%s  \n", markdown_cell(line).c_str());
  if (r.tables.empty()) std::fprintf(out, "\n_No measured records._\n");
  for (const Table& t : r.tables) {
    std::fprintf(out, "\n");
    for (std::size_t i = 0; i < t.title.size(); ++i)
      std::fprintf(out, i == 0 ? "### %s\n" : "%s  \n", markdown_cell(t.title[i]).c_str());
    if (!t.title.empty()) std::fprintf(out, "\n");
    if (t.vertical) markdown_vertical(out, t);
    else markdown_rows(out, t);
    if (!t.notes.empty()) std::fprintf(out, "\n");
    for (const std::string& line : t.notes) std::fprintf(out, "%s  \n", markdown_cell(line).c_str());
  }
}

}  // namespace

Json report_json(const Report& r) {
  Json tables = Json::object();
  for (const Table& t : r.tables) {
    Json& rows = tables[t.key];
    if (rows.is_null()) rows = Json::array();
    for (const auto& row : t.rows) {
      Json o = Json::object();
      for (std::size_t i = 0; i < t.columns.size(); ++i)
        if (in_data(t.columns[i])) o[t.columns[i].name] = i < row.size() ? row[i] : Json();
      rows.push_back(std::move(o));
    }
  }
  return tables;
}

std::string cell_text(const Column& column, const Json& cell) {
  if (cell.is_null()) return "-";
  if (cell.is_string()) return cell.get<std::string>();
  if (cell.is_number_float() && column.decimals >= 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", column.decimals, cell.get<double>());
    return buf;
  }
  return cell.dump();
}

void print_text_header(std::FILE* out, const Table& table) { text_line(out, table, names(table)); }

void print_text_row(std::FILE* out, const Table& table, const std::vector<Json>& row) {
  text_line(out, table, texts(table, row));
}

void print_csv(std::FILE* out, const Table& t) {
  std::string line;
  for (const Column& c : t.columns) {
    if (!in_data(c)) continue;
    if (!line.empty()) line += ',';
    line += csv_field(c.name);
  }
  std::fprintf(out, "%s\r\n", line.c_str());
  for (const auto& row : t.rows) {
    line.clear();
    bool first = true;
    for (std::size_t i = 0; i < t.columns.size(); ++i) {
      if (!in_data(t.columns[i])) continue;
      if (!first) line += ',';
      first = false;
      line += csv_field(i < row.size() ? row[i] : Json());
    }
    std::fprintf(out, "%s\r\n", line.c_str());
  }
}

void print_report(std::FILE* out, TableFormat format, const Report& report) {
  print_reports(out, format, {{"", report}});
}

void print_reports(std::FILE* out, TableFormat format, const std::vector<std::pair<std::string, Report>>& reports) {
  if (format == TableFormat::json) {
    Json doc = Json::object();
    for (const auto& [heading, report] : reports) doc[heading] = report_json(report);
    const Json& shown = reports.size() == 1 && reports.front().first.empty() ? doc[""] : doc;
    std::fprintf(out, "%s\n", shown.dump(2, ' ', false, Json::error_handler_t::replace).c_str());
    return;
  }
  if (format == TableFormat::csv) {  // one CSV document holds one table
    std::vector<const Table*> tables;
    for (const auto& [heading, report] : reports)
      for (const Table& t : report.tables) tables.push_back(&t);
    if (tables.size() > 1) throw usage_error("CSV holds one table, and this report has several: print each by itself");
    if (!tables.empty()) print_csv(out, *tables.front());
    std::fflush(out);
    return;
  }
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const auto& [heading, report] = reports[i];
    if (format == TableFormat::markdown) {
      if (!heading.empty()) std::fprintf(out, "%s## %s\n\n", i > 0 ? "\n" : "", markdown_cell(heading).c_str());
      print_markdown(out, report);
    } else {
      if (!heading.empty()) std::fprintf(out, "%s==> %s <==\n", i > 0 ? "\n" : "", heading.c_str());
      print_text(out, report);
    }
  }
  std::fflush(out);
}

}  // namespace hetprobe
