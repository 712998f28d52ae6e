// Host-side names of the device layer's enums (device.hpp and the protocol
// headers stay free of strings for nvcc/hipcc): the names records and options use.
#pragma once

#include "base/enum_table.hpp"
#include "probes/device/device.hpp"
#include "probes/signal/signal_protocol.hpp"

namespace hetprobe {

inline constexpr EnumTable<Access, 2> kAccessNames{"access mode",
                                                   {{{Access::stream, "stream"}, {Access::stacked, "stacked"}}}};

inline constexpr EnumTable<MemoryOrder, 4> kMemoryOrderNames{"memory order",
                                                             {{{MemoryOrder::volatile_access, "volatile"},
                                                               {MemoryOrder::relaxed, "relaxed"},
                                                               {MemoryOrder::acq_rel, "acqrel"},
                                                               {MemoryOrder::fence, "fence"}}}};

// device: the notify mechanisms' own choice, never a --placement.
inline constexpr EnumTable<FlagPlacement, 3> kFlagPlacementNames{"flag placement",
                                                                 {{{FlagPlacement::pinned, "pinned"},
                                                                   {FlagPlacement::managed, "managed"},
                                                                   {FlagPlacement::device, "device",
                                                                    EnumUse::internal}}}};

inline constexpr EnumTable<HostCoherence, 3> kHostCoherenceNames{"host memory",
                                                                 {{{HostCoherence::default_kind, "default"},
                                                                   {HostCoherence::coherent, "coherent"},
                                                                   {HostCoherence::noncoherent, "noncoherent"}}}};

inline constexpr EnumTable<LaunchMechanism, 8>
    kLaunchMechanismNames{"launch mechanism",
                          {{{LaunchMechanism::launch_flag, "launch+pinned-flag"},
                            {LaunchMechanism::launch_device_sync, "launch+device-sync"},
                            {LaunchMechanism::launch_event_query, "launch+event-query"},
                            {LaunchMechanism::launch_event_sync, "launch+event-sync"},
                            {LaunchMechanism::launch_host_callback, "launch+host-callback"},
                            {LaunchMechanism::launch_stream_write_value, "launch+stream-write-value"},
                            {LaunchMechanism::device_flag_memcpy, "memcpy-to-device-flag"},
                            {LaunchMechanism::stream_wait_value, "stream-wait-value"}}}};

}  // namespace hetprobe
