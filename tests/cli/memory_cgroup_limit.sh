#!/usr/bin/env bash
# memory_cgroup_limit.sh HETPROBE: a memory cgroup's limit bounds what a run
# may allocate, not only MemAvailable (a 4 GiB container on a large node was
# killed by the out-of-memory killer). A fake cgroup tree under
# HETPROBE_SYSFS_ROOT/fs/cgroup, at the hierarchy's root (which every
# process's cgroup path reaches), for v2 (memory.max) and v1
# (memory/memory.limit_in_bytes): a size above the limit less the use is
# refused with exit 2, nothing written, and the message names the cgroup;
# reclaimable page cache (inactive_file) counts as free.
set -uo pipefail
hp=$1
expect=$(dirname "$0")/expect_usage_error.sh
# shellcheck source=scratch.sh
source "$(dirname "$0")/scratch.sh"
sysfs=$work  # stands in for /sys
gib=$((1 << 30))

# v2: limit 2 GiB, 1.5 GiB used of which 1 GiB is inactive page cache: 1.5 GiB left.
mkdir -p "$sysfs/fs/cgroup"
echo $((2 * gib)) >"$sysfs/fs/cgroup/memory.max"
echo $((3 * gib / 2)) >"$sysfs/fs/cgroup/memory.current"
printf 'anon 536870912\nfile 1073741824\ninactive_file %d\nactive_file 0\n' "$gib" >"$sysfs/fs/cgroup/memory.stat"
"$expect" "--size 2GiB needs 2.00 GiB of host memory; 1.50 GiB is available now \\(the memory limit of cgroup $sysfs/fs/cgroup less its use" -- \
  env HETPROBE_SYSFS_ROOT="$sysfs" "$hp" bandwidth --device host --size 2GiB --out @OUT@ || fail "cgroup v2 limit"

# v1 beside it, tighter: 1 GiB limit, 256 MiB used.
rm "$sysfs/fs/cgroup/memory.max"
mkdir -p "$sysfs/fs/cgroup/memory"
echo "$gib" >"$sysfs/fs/cgroup/memory/memory.limit_in_bytes"
echo $((gib / 4)) >"$sysfs/fs/cgroup/memory/memory.usage_in_bytes"
"$expect" "--size 1GiB needs 1.00 GiB of host memory; 0.75 GiB is available now \\(the memory limit of cgroup $sysfs/fs/cgroup/memory less its use" -- \
  env HETPROBE_SYSFS_ROOT="$sysfs" "$hp" bandwidth --device host --size 1GiB --out @OUT@ || fail "cgroup v1 limit"

# "max" (v2: no limit) and v1's huge number: no limit, the run is not refused for it.
echo max >"$sysfs/fs/cgroup/memory.max"
echo 9223372036854771712 >"$sysfs/fs/cgroup/memory/memory.limit_in_bytes"
out=$(HETPROBE_SYSFS_ROOT="$sysfs" "$hp" bandwidth --device host --size 4KiB --reps 1 --duration 0.01 --quiet \
  --out "$sysfs/r.jsonl" 2>&1) || fail "no limit, yet refused: $out"
echo "OK: a cgroup's memory limit bounds the run (v2 and v1), with reclaimable cache counted free"
