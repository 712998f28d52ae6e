#!/usr/bin/env bash
# Every list option that takes `all` (EnumTable::parse_list) says so in its --help line.
# usage: help_names_all.sh HETPROBE
set -u
hp=$1
fail=0
check() {  # COMMAND OPTION
  local line
  # The option's line, and the next one where CLI11 moved the description there.
  line=$("$hp" "$1" --help | awk -v opt="$2" '
    found && !/^ +-/ { print; exit }
    found { exit }
    $1 == opt || index($1, opt "=") == 1 { found = 1; print }')
  if [[ -z $line ]]; then
    echo "FAIL: $1 --help has no $2 line"; fail=1
  elif ! grep -qw all <<<"$line"; then
    echo "FAIL: $1 $2's help does not mention all: $line"; fail=1
  fi
}
for o in --layouts --access --load; do check interference "$o"; done
for o in --parts --placement --spacing; do check notify "$o"; done
for o in --variants --send --recv-wait --signal --staging; do check halo "$o"; done
check bandwidth --load
exit $fail
