// The MPI library's transport settings that decide how large messages move
// between ranks of one node, read through the MPI tool interface after
// MPI_Init, for the header's mpi.transport (docs/results-schema.md). Open
// MPI: the PML, the BTLs, the shared-memory BTL's single-copy mechanism and
// its eager and rendezvous limits, the network BTL (between hosts) and its
// eager limit, each with where it came from; other
// libraries: the variables that name a transport, and the environment.
// --single-copy asks Open MPI for a single-copy mechanism before MPI_Init.
#pragma once

#include <string>

#include "base/enum_table.hpp"
#include "bench/core/results.hpp"

namespace hetprobe {

// --single-copy: keep (whatever the library and its environment chose), or a mechanism to ask Open MPI for.
enum class SingleCopy { keep, none, cma, xpmem, knem };
inline constexpr EnumTable<SingleCopy, 5> kSingleCopyNames{"single-copy mechanism",
                                                           {{{SingleCopy::keep, "keep"},
                                                             {SingleCopy::none, "none"},
                                                             {SingleCopy::cma, "cma"},
                                                             {SingleCopy::xpmem, "xpmem"},
                                                             {SingleCopy::knem, "knem"}}}};

// Before MPI_Init: "" when `mechanism` may be asked for, else why not (a
// usage message: "--single-copy xpmem: this Open MPI 4.1.4 was built without
// it; its shared-memory BTL offers cma, emulated or none"), so that Open MPI
// never sees a value it would warn about. The mechanisms Open MPI has are
// read through MPI_T in a child process: MPI_T opened in this one before
// MPI_Init would fix the MCA settings before request_single_copy sets one.
// "" too where they cannot be known (check_single_copy judges after MPI_Init).
std::string single_copy_unavailable(SingleCopy mechanism);

// Before MPI_Init, on every rank: sets the Open MPI variable that selects
// `mechanism` in this process's environment (Open MPI 4:
// OMPI_MCA_btl_vader_single_copy_mechanism; 5: OMPI_MCA_smsc). Nothing for
// keep, or another library (check_single_copy says why).
void request_single_copy(SingleCopy mechanism);

// After MPI_Init: this rank's transport settings. Never throws; a library
// without MPI_T gives what the environment says.
Json read_mpi_transport(SingleCopy requested = SingleCopy::keep);

// Throws a usage Error when --single-copy asked for a mechanism that is not
// in effect (`transport` from read_mpi_transport): another library, or Open
// MPI fell back (a mechanism it was built without, or not permitted).
void check_single_copy(const Json& transport);

}  // namespace hetprobe
