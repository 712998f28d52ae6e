#!/usr/bin/env bash
# The halo probe on the host backend: both variants, blocking and non-blocking
# sends, Waitall and Testany, 2 ranks (pair peers) and 4 ranks (grid peers),
# and a layout file; every unpacked word verified, every record checked.
source "$(dirname "$0")/common.sh"
check() {  # FILE RANKS VARIANTS ITERATIONS LAYOUTS MESSAGES_PER_RANK
  python3 - "$@" <<'PY'
import json, sys
path, ranks, variants, iterations, layouts, messages = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
records = [json.loads(line) for line in open(path)]
assert records[0]["record"] == "header" and records[0]["probe"] == "halo", records[0]
halo = [r for r in records if r["record"] == "halo"]
assert len(halo) == ranks * len(variants) * layouts, (len(halo), ranks, variants, layouts)
for r in halo:
    assert r["status"] == "ok" and r["payload"]["check"] == "intact", r["payload"]
    assert r["n"] == iterations and len(r["iteration_ns"]["samples"]) == iterations
    assert r["messages_sent"] == messages and len(r["pack"]) == messages
    for it in r["timeline"]["iterations"]:
        assert len(it["pack_start_ns"]) == messages and len(it["send_ns"]) == messages
        assert all(0 <= s <= it["total_ns"] for s in it["send_ns"]), it["send_ns"]
    assert (r["rank"] == 0) == (r["slowest_rank_iteration_ns"] is not None)
    if r["rank"] == 0:
        assert all(s >= t for s, t in zip(r["slowest_rank_iteration_ns"]["samples"], r["iteration_ns"]["samples"]))
assert sorted({r["variant"] for r in halo}) == sorted(variants)
models = [r for r in records if r["record"] == "halo_model"]
assert len(models) == layouts and all(sorted(m["lower_bound_ns"]) == sorted(variants) for m in models)
print(f"{path}: {len(halo)} halo records ok")
PY
}
"${mpirun[@]}" "$HETPROBE" halo --device host --cube 200 --iterations 4 --warmup 1 --quiet --out "$work/pair.jsonl" >/dev/null
check "$work/pair.jsonl" 2 baseline,notify-stream 4 1 26
"${mpirun[@]}" "$HETPROBE" halo --device host --cube 40,80 --iterations 3 --warmup 1 --send send --recv-wait testany \
  --variants baseline --quiet --out "$work/blocking.jsonl" >/dev/null
check "$work/blocking.jsonl" 2 baseline 3 2 26
mpirun4=("${mpirun[@]}")
mpirun4[2]=4  # "mpirun -np 2 ..." -> 4 ranks: a 2x2x1 grid, self messages included
"${mpirun4[@]}" "$HETPROBE" halo --device host --cube 40 --peers grid --iterations 3 --warmup 1 --quiet \
  --out "$work/grid.jsonl" >/dev/null
check "$work/grid.jsonl" 4 baseline,notify-stream 3 1 26
printf '# two messages each way\n0 1 1KiB\n1 0 1KiB\n0 1 13\n1 0 13\n' >"$work/layout.txt"
"${mpirun[@]}" "$HETPROBE" halo --device host --layout-file "$work/layout.txt" --iterations 3 --warmup 1 --quiet \
  --out "$work/file.jsonl" >/dev/null
check "$work/file.jsonl" 2 baseline,notify-stream 3 1 2
