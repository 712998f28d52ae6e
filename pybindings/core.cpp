// hetprobe._core: the compiled half of the Python package, bound by domain
// (bind_*.cpp; bind_common.hpp lists them). hetprobe::Error becomes the
// package's exception for its kind (hetprobe/errors.py).
#include <dlfcn.h>
#include <hwloc.h>
#include <pybind11/pybind11.h>

#include <exception>
#include <string>

#include "base/errors.hpp"
#include "bind_common.hpp"

namespace py = pybind11;
using namespace hetprobe;

namespace {

void raise_as(const char* name, const std::string& message) {
  py::object type = py::module_::import("hetprobe.errors").attr(name);
  PyErr_SetString(type.ptr(), message.c_str());
}

// Python loads this module with RTLD_LOCAL, so hwloc's plugins (PCI
// discovery, the libxml XML reader), which hwloc dlopens and which expect
// libhwloc's symbols to be global, would fail to load. Promote libhwloc.
void make_hwloc_global() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&hwloc_topology_init), &info) != 0 && info.dli_fname != nullptr)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "hetprobe's compiled probes; use the hetprobe package, not this module";
  make_hwloc_global();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      raise_as(exception_name(e.kind()), user_message(e));
    }
  });
  bind_records(m);
  bind_probes(m);
  bind_tables(m);
  bind_judgement(m);
  bind_gpus(m);
  bind_aggregate(m);
}
