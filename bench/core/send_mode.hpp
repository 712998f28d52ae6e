// How a sender hands a message to MPI: one type, one name table and one
// record field (send_mode) for every probe that sends (interference, halo).
#pragma once

#include "base/enum_table.hpp"

namespace hetprobe {

enum class SendMode {
  isend,  // MPI_Isend, waited for later (interference: at once, MPI_Wait; halo: MPI_Waitall at the end)
  send,   // the blocking MPI_Send
};
inline constexpr EnumTable<SendMode, 2> kSendModeNames{"send mode",
                                                       {{{SendMode::isend, "isend"}, {SendMode::send, "send"}}}};
inline const char* to_string(SendMode mode) { return kSendModeNames.name(mode); }

}  // namespace hetprobe
