#include "bench/core/record_field.hpp"

#include <limits>

#include "base/errors.hpp"

namespace hetprobe {

namespace {

// What a value is, for "got ...": its JSON type, and a short string's text.
std::string describe(const Json& v) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    return "string \"" + (s.size() > 40 ? s.substr(0, 40) + "..." : s) + "\"";
  }
  if (v.is_number()) return "number " + v.dump();
  return v.type_name();
}

std::string prefix(const RecordRef& r, std::string_view path) {
  return (r.place.empty() ? std::string("record") : r.place) + ": field '" + std::string(path) + "'";
}

[[noreturn]] void missing(const RecordRef& r, std::string_view path) {
  throw usage_error(prefix(r, path) + " is missing");
}

[[noreturn]] void wrong_type(const RecordRef& r, std::string_view path, const Json& v, const std::string& expected) {
  throw usage_error(prefix(r, path) + ": expected " + expected + ", got " + describe(v));
}

template <class T>
T convert(const RecordRef& r, std::string_view path, const Json& v) {
  if constexpr (std::is_same_v<T, double>) {
    if (!v.is_number()) wrong_type(r, path, v, "a number");
    return v.get<double>();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) wrong_type(r, path, v, "true or false");
    return v.get<bool>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) wrong_type(r, path, v, "a string");
    return v.get<std::string>();
  } else if constexpr (std::is_same_v<T, std::uint64_t>) {
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
      wrong_type(r, path, v, "a whole number at least 0");
    return v.get<std::uint64_t>();
  } else {
    static_assert(std::is_same_v<T, int> || std::is_same_v<T, std::int64_t>, "field<T>: unsupported type");
    constexpr auto lo = std::numeric_limits<T>::min();
    constexpr auto hi = std::numeric_limits<T>::max();
    const std::string range = "a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    if (v.is_number_unsigned()) {
      if (v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)) wrong_type(r, path, v, range);
      return static_cast<T>(v.get<std::uint64_t>());
    }
    if (!v.is_number_integer()) wrong_type(r, path, v, range);
    const std::int64_t x = v.get<std::int64_t>();
    if (x < lo || x > hi) wrong_type(r, path, v, range);
    return static_cast<T>(x);
  }
}

}  // namespace

const Json* find_field(const RecordRef& r, std::string_view path) {
  const Json* at = &r.json;
  for (std::size_t start = 0;;) {
    const std::size_t dot = path.find('.', start);
    const std::string_view parent = path.substr(0, start == 0 ? 0 : start - 1);
    if (start > 0 && at->is_null()) return nullptr;  // a summary of no samples is null: its fields are absent
    if (!at->is_object()) {
      if (start == 0) wrong_type(r, "(record)", *at, "an object");
      wrong_type(r, parent, *at, "an object");
    }
    const std::string key(path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    const auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
    if (dot == std::string_view::npos) return at;
    start = dot + 1;
  }
}

const Json& field_json(const RecordRef& r, std::string_view path) {
  const Json* v = find_field(r, path);
  if (v == nullptr) missing(r, path);
  return *v;
}

template <class T>
T field(const RecordRef& r, std::string_view path) {
  return convert<T>(r, path, field_json(r, path));
}

template <class T>
T field_or(const RecordRef& r, std::string_view path, T fallback) {
  const Json* v = find_field(r, path);
  return v == nullptr || v->is_null() ? fallback : convert<T>(r, path, *v);
}

Json number_or_null(const RecordRef& r, std::string_view path) {
  const Json* v = find_field(r, path);
  if (v == nullptr || v->is_null()) return nullptr;
  if (!v->is_number()) wrong_type(r, path, *v, "a number or null");
  return *v;
}

std::vector<double> number_list(const RecordRef& r, std::string_view path, const std::string& expected) {
  const Json& list = field_json(r, path);
  if (!list.is_array()) bad_field(r, path, expected);
  std::vector<double> out;
  for (const Json& x : list) {
    if (!x.is_number()) bad_field(r, path, expected);
    out.push_back(x.get<double>());
  }
  return out;
}

std::vector<std::string> record_warnings(const RecordRef& r) {
  std::vector<std::string> out;
  const Json* w = find_field(r, "warnings");
  if (w == nullptr || w->is_null()) return out;
  if (!w->is_array()) wrong_type(r, "warnings", *w, "a list of strings");
  for (const Json& s : *w) {
    if (!s.is_string()) wrong_type(r, "warnings", s, "a list of strings");
    out.push_back(s.get<std::string>());
  }
  return out;
}

void bad_field(const RecordRef& r, std::string_view path, const std::string& expected) {
  const Json* v = find_field(r, path);
  if (v == nullptr) missing(r, path);
  wrong_type(r, path, *v, expected);
}

template double field<double>(const RecordRef&, std::string_view);
template int field<int>(const RecordRef&, std::string_view);
template std::int64_t field<std::int64_t>(const RecordRef&, std::string_view);
template std::uint64_t field<std::uint64_t>(const RecordRef&, std::string_view);
template bool field<bool>(const RecordRef&, std::string_view);
template std::string field<std::string>(const RecordRef&, std::string_view);
template double field_or<double>(const RecordRef&, std::string_view, double);
template int field_or<int>(const RecordRef&, std::string_view, int);
template std::int64_t field_or<std::int64_t>(const RecordRef&, std::string_view, std::int64_t);
template std::uint64_t field_or<std::uint64_t>(const RecordRef&, std::string_view, std::uint64_t);
template bool field_or<bool>(const RecordRef&, std::string_view, bool);
template std::string field_or<std::string>(const RecordRef&, std::string_view, std::string);

}  // namespace hetprobe
