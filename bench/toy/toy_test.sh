#!/usr/bin/env bash
# A probe is its folder (docs/architecture.md, "Adding a probe"): the toy probe,
# declared only here and in its line of bench/cli/probe_table.cpp, runs and
# `show` prints its table from the file (test_toy.py reads it from Python).
# toy_test.sh HETPROBE
set -euo pipefail
hp=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$hp" toy --device host --samples 50 --reads 20 --quiet --out "$work/toy.jsonl"
"$hp" show "$work/toy.jsonl" >"$work/show.txt"
grep -Eq '^ *rank +clock +reads_per_sample +samples +median_ns' "$work/show.txt" \
  || { echo "FAIL: show printed no toy table:"; cat "$work/show.txt"; exit 1; }
grep -Eq '^ *0 +[a-z_]+ +20 +50 +[0-9.]+' "$work/show.txt" || { echo "FAIL: no row of rank 0:"; cat "$work/show.txt"; exit 1; }
