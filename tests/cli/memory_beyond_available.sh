#!/usr/bin/env bash
# memory_beyond_available.sh HETPROBE: a size that fits this node's physical
# memory but not the memory available now is refused with exit 2 and nothing
# written, instead of the out-of-memory killer ending the run. Skipped (77)
# where installed and available memory are too close to tell apart.
set -uo pipefail
hp=$1
kib() { awk -v k="$1:" '$1 == k {print $2}' /proc/meminfo; }
total=$(($(kib MemTotal) * 1024))
available=$(($(kib MemAvailable) * 1024))
gap=$((total - available))
if ((gap < 1 << 30)); then
  echo "SKIP: only $gap bytes between installed and available memory"
  exit 77
fi
size=$((available + gap / 2))  # above what is available, below what is installed
echo "installed $total, available $available: asking for $size bytes"
exec "$(dirname "$0")/expect_usage_error.sh" "--size $size needs .* GiB of host memory; .* is available now" -- \
  "$hp" bandwidth --device host --size "$size" --out @OUT@
