#!/usr/bin/env bash
# The halo probe on the host backend: all three variants and the thesis's
# dimensions (blocking and non-blocking sends, Waitall and Testany, channel and
# queue signals, pinned and memcpy staging), 2 ranks (pair peers), 4 ranks
# (grid peers) and a layout file; every unpacked word verified, every record checked;
# ITERATIONS below is rounds x iterations per visit.
source "$(dirname "$0")/common.sh"
check() {  # FILE RANKS SETUPS ITERATIONS LAYOUTS MESSAGES_PER_RANK
  python3 "$(dirname "$0")/check_halo.py" "$@"
}
"${mpirun[@]}" "$HETPROBE" halo --device host --cube 200 --rounds 2 --iterations 2 --warmup 1 --quiet --out "$work/pair.jsonl" >/dev/null
check "$work/pair.jsonl" 2 3 4 1 26
# The thesis's matrix: baseline 2 sends x 2 waits x 2 stagings, each notify variant 2 x 2 signals x 2.
"${mpirun[@]}" "$HETPROBE" halo --device host --cube 40 --rounds 1 --iterations 2 --warmup 1 --send isend,send \
  --recv-wait waitall,testany --signal channel,queue --staging pinned,memcpy --quiet --out "$work/matrix.jsonl" >/dev/null
check "$work/matrix.jsonl" 2 24 2 1 26
mpirun4=("${mpirun[@]}")
mpirun4[2]=4  # "mpirun -np 2 ..." -> 4 ranks: a 2x2x1 grid, self messages included
"${mpirun4[@]}" "$HETPROBE" halo --device host --cube 40 --peers grid --rounds 3 --iterations 1 --warmup 1 --signal queue \
  --staging memcpy --timeline median --quiet --out "$work/grid.jsonl" >/dev/null
check "$work/grid.jsonl" 4 3 3 1 26
printf '# two messages each way\n0 1 1KiB\n1 0 1KiB\n0 1 13\n1 0 13\n' >"$work/layout.txt"
# Whole messages too: notify-stacked's long ones (--long-bytes) on the whole grid, the paper's form.
"${mpirun[@]}" "$HETPROBE" halo --device host --layout-file "$work/layout.txt" --rounds 1 --iterations 3 --warmup 1 --quiet \
  --long-bytes 1KiB --parts auto,whole --timeline none --out "$work/file.jsonl" >/dev/null
check "$work/file.jsonl" 2 6 3 1 2
