#include "bench/core/mpi_cvars.hpp"

#include <cstdint>
#include <cstring>

namespace hetprobe {

namespace {

// The name an enum gives `value` (e.g. Open MPI's single-copy mechanism 3:
// "none"); "" where it has none (flag sets are sums of items).
std::string enum_item_name(MPI_T_enum items, long long value) {
  int count = 0;
  char name[256];
  int len = sizeof name;
  if (MPI_T_enum_get_info(items, &count, name, &len) != MPI_SUCCESS) return "";
  for (int i = 0; i < count; ++i) {
    int item = 0;
    len = sizeof name;
    if (MPI_T_enum_get_item(items, i, &item, name, &len) == MPI_SUCCESS && item == value) return name;
  }
  return "";
}

// A one-element value of an integer or floating type as JSON; null for types this reader does not know.
Json number_of(MPI_Datatype type, const unsigned char* bytes) {
  const auto as = [bytes]<typename T>(T) {
    T x;
    std::memcpy(&x, bytes, sizeof x);
    return Json(x);
  };
  if (type == MPI_INT) return as(int{});
  if (type == MPI_UNSIGNED) return as(unsigned{});
  if (type == MPI_LONG) return as(long{});
  if (type == MPI_UNSIGNED_LONG) return as(static_cast<unsigned long>(0));
  if (type == MPI_LONG_LONG) return as(static_cast<long long>(0));
  if (type == MPI_UNSIGNED_LONG_LONG) return as(static_cast<unsigned long long>(0));
  if (type == MPI_COUNT) return as(MPI_Count{});
  if (type == MPI_DOUBLE) return as(double{});
  if (type == MPI_C_BOOL) return as(bool{});
  return nullptr;
}

}  // namespace

ControlVariables::ControlVariables() {
  static const bool open = [] {
    int provided = 0;
    return MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS;
  }();
  if (!open) return;
  opened_ = true;
  int count = 0;
  if (MPI_T_cvar_get_num(&count) != MPI_SUCCESS) return;
  for (int i = 0; i < count; ++i) {
    char name[512], description[8];
    int name_len = sizeof name, description_len = sizeof description;
    int verbosity = 0, bind = 0, scope = 0;
    Var v;
    v.index = i;
    // Fails for variables the library has dropped (a closed component's).
    if (MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &v.type, &v.items, description, &description_len, &bind,
                            &scope) != MPI_SUCCESS ||
        bind != MPI_T_BIND_NO_OBJECT)
      continue;
    const std::string key(name);
    if (vars_.emplace(key, v).second) names_.push_back(key);
  }
}

Json ControlVariables::value(const std::string& name) const {
  const auto found = vars_.find(name);
  if (found == vars_.end()) return nullptr;
  const Var& v = found->second;
  MPI_T_cvar_handle handle;
  int count = 0;
  if (MPI_T_cvar_handle_alloc(v.index, nullptr, &handle, &count) != MPI_SUCCESS) return nullptr;
  Json out = nullptr;
  if (v.type == MPI_CHAR && count > 0) {
    std::string text(static_cast<std::size_t>(count) + 1, '\0');
    if (MPI_T_cvar_read(handle, text.data()) == MPI_SUCCESS) out = std::string(text.c_str());
  } else if (int size = 0; count == 1 && MPI_Type_size(v.type, &size) == MPI_SUCCESS && size > 0 && size <= 16) {
    alignas(16) unsigned char bytes[16] = {};
    if (MPI_T_cvar_read(handle, bytes) == MPI_SUCCESS) out = number_of(v.type, bytes);
  }
  MPI_T_cvar_handle_free(&handle);
  if (out.is_number_integer() && v.items != MPI_T_ENUM_NULL)
    if (const std::string item = enum_item_name(v.items, out.get<long long>()); !item.empty()) out = item;
  return out;
}

std::vector<std::string> ControlVariables::enum_items(const std::string& name) const {
  std::vector<std::string> out;
  const auto found = vars_.find(name);
  if (found == vars_.end() || found->second.items == MPI_T_ENUM_NULL) return out;
  int count = 0;
  char text[256];
  int len = sizeof text;
  if (MPI_T_enum_get_info(found->second.items, &count, text, &len) != MPI_SUCCESS) return out;
  for (int i = 0; i < count; ++i) {
    int item = 0;
    len = sizeof text;
    if (MPI_T_enum_get_item(found->second.items, i, &item, text, &len) == MPI_SUCCESS) out.emplace_back(text);
  }
  return out;
}

}  // namespace hetprobe
