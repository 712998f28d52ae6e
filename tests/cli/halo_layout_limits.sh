#!/usr/bin/env bash
# halo_layout_limits.sh HETPROBE: a halo layout file past its bounds is
# refused before anything runs or is written (exit 2, the limit in the
# message), where it used to run for minutes with gigabytes per rank and
# leave a header-only file; and a line's huge number is named, not echoed.
set -uo pipefail
hp=$1
expect=$(dirname "$0")/expect_usage_error.sh
# shellcheck source=scratch.sh
source "$(dirname "$0")/scratch.sh"

# 100,000 messages from rank 0 to itself.
awk 'BEGIN { for (i = 0; i < 100000; ++i) print "0 0 8" }' >"$work/many.txt"
"$expect" "many.txt:1025: rank 0 sends more than 1024 messages; a layout gives each rank at most 1024 to send and 1024 to receive" -- \
  "$hp" halo --device host --layout-file "$work/many.txt" --out @OUT@ || fail "100,000 messages"

# 2,000 senders to one receiver: each sends one, rank 0 receives too many.
awk 'BEGIN { for (i = 0; i < 2000; ++i) print i, 0, 8 }' >"$work/fan_in.txt"
"$expect" "fan_in.txt:1025: rank 0 receives more than 1024 messages" -- \
  "$hp" halo --device host --layout-file "$work/fan_in.txt" --out @OUT@ || fail "fan-in"

# Past 16 MiB: refused before it is read.
{ echo "0 0 8"; head -c $((17 << 20)) /dev/zero | tr '\0' '#'; echo; } >"$work/big.txt"
"$expect" "big.txt\": [0-9]+ bytes; a layout file is at most 16 MiB" -- \
  "$hp" halo --device host --layout-file "$work/big.txt" --out @OUT@ || fail "17 MiB file"

# A 10 MB number: the message names its length, and stays short.
{ printf '0 0 '; head -c 10000000 /dev/zero | tr '\0' '7'; echo; } >"$work/long.txt"
"$expect" "long.txt:1: size \"7{80}\\.\\.\\. \\(10000000 characters\\)\": too large" -- \
  "$hp" halo --device host --layout-file "$work/long.txt" --out @OUT@ >"$work/log" || { cat "$work/log"; fail "10 MB number"; }
(($(wc -c <"$work/log") < 2000)) || fail "the message echoes the number: $(wc -c <"$work/log") bytes"
echo "OK: layout files are bounded, and what they hold is named, not echoed"
