// The MPI library's control variables, read through the MPI tool interface
// (MPI_T). Never throws and never fails the run: a library without MPI_T, or
// a variable that cannot be read, is simply absent.
#pragma once

#include <mpi.h>

#include <map>
#include <string>
#include <vector>

#include "bench/core/results.hpp"

namespace hetprobe {

class ControlVariables {
 public:
  // Opens MPI_T (any time, before or after MPI_Init) and lists the variables
  // the library has now; Open MPI drops those of components it closed.
  // MPI_T is opened once per process and stays open until it ends (no
  // MPI_T_finalize): Open MPI 4.1's finalize closes what MPI_T_init_thread
  // opened, and the thread-local storage it leaves behind crashed
  // LeakSanitizer's exit check in about half of the 2-rank runs ("Tracer
  // caught signal 11").
  ControlVariables();
  ControlVariables(const ControlVariables&) = delete;
  ControlVariables& operator=(const ControlVariables&) = delete;

  bool opened() const { return opened_; }
  std::size_t size() const { return names_.size(); }
  const std::vector<std::string>& names() const { return names_; }
  bool has(const std::string& name) const { return vars_.count(name) != 0; }
  // A number, a string, or the name of an enum's item; null when it has no
  // value this reader can read (or no such variable).
  Json value(const std::string& name) const;
  // The names of an enum variable's items, in the library's order; empty
  // for a variable that is no enum (or no such variable).
  std::vector<std::string> enum_items(const std::string& name) const;

 private:
  struct Var {
    int index = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum items = MPI_T_ENUM_NULL;
  };
  bool opened_ = false;
  std::vector<std::string> names_;  // in the library's order
  std::map<std::string, Var> vars_;
};

}  // namespace hetprobe
