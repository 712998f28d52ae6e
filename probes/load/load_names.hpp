// Host-side names of the load kinds (load_protocol.hpp stays free of strings
// for nvcc/hipcc): the names records and --load use.
#pragma once

#include "base/enum_table.hpp"
#include "probes/load/load_engine.hpp"
#include "probes/load/load_protocol.hpp"

namespace hetprobe {

// none (no load) is named only on its own: "all" is every load there is.
inline constexpr EnumTable<LoadKind, 6> kLoadKindNames{"load kind",
                                                       {{{LoadKind::write, "write"},
                                                         {LoadKind::read, "read"},
                                                         {LoadKind::poll, "poll"},
                                                         {LoadKind::copy_d2h, "copy-d2h"},
                                                         {LoadKind::copy_h2d, "copy-h2d"},
                                                         {LoadKind::none, "none", EnumUse::named_only}}}};

// Printed only: the engine is the device's choice for a kind, never an option.
inline constexpr EnumTable<LoadEngineKind, 3>
    kLoadEngineKindNames{"load engine",
                         {{{LoadEngineKind::kernel, "kernel", EnumUse::internal},
                           {LoadEngineKind::copy_engine, "copy engine", EnumUse::internal},
                           {LoadEngineKind::host_threads, "host threads", EnumUse::internal}}}};

}  // namespace hetprobe
