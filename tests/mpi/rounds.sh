#!/usr/bin/env bash
# Rounds interleave and replay: each round visits a size's points in its own
# shuffled order (the recorded orders differ between rounds), --seed replays
# the same orders, another seed gives others, and --gap is honoured: the
# sender's measured time before each send (gap.spent_ns) is at least the gap;
# with a gap, each visit's cold and warm sends interleave in a seeded order
# that --seed replays, and each point carries cold / warm paired by round;
# the receiver checks one payload a visit, or every one with --check-every.
source "$(dirname "$0")/common.sh"
sweep=(interference --device host --sizes 1KiB,4KiB --layouts SSB,PCB,P2AB --access stacked --load write,poll
  --load-bytes 2MiB
  --rounds 6 --reps 2 --quiet --no-host-stream)
"${mpirun[@]}" "$HETPROBE" "${sweep[@]}" --seed 7 --out "$work/a.jsonl" >/dev/null
"${mpirun[@]}" "$HETPROBE" "${sweep[@]}" --seed 7 --out "$work/b.jsonl" >/dev/null
"${mpirun[@]}" "$HETPROBE" "${sweep[@]}" --seed 8 --out "$work/c.jsonl" >/dev/null
"${mpirun[@]}" "$HETPROBE" "${sweep[@]}" --seed 7 --gap 2ms --out "$work/g.jsonl" >/dev/null
"${mpirun[@]}" "$HETPROBE" "${sweep[@]}" --seed 7 --gap 2ms --out "$work/g2.jsonl" >/dev/null
"${mpirun[@]}" "$HETPROBE" "${sweep[@]}" --seed 8 --gap 2ms --out "$work/g3.jsonl" >/dev/null
"${mpirun[@]}" "$HETPROBE" "${sweep[@]}" --seed 7 --check-every --out "$work/e.jsonl" >/dev/null
"${mpirun[@]}" "$HETPROBE" "${sweep[@]}" --seed 7 --gap sweep:8MiB --out "$work/s.jsonl" >/dev/null
"$CHECK" "$work/a.jsonl" 10 2
python3 "$(dirname "$0")/check_rounds.py" "$work"
