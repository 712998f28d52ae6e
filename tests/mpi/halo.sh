#!/usr/bin/env bash
# The halo probe on the host backend: all three variants and the thesis's
# dimensions (blocking and non-blocking sends, Waitall and Testany, channel and
# queue signals, pinned and memcpy staging), 2 ranks (pair peers), 4 ranks
# (grid peers) and a layout file; every unpacked word verified, every record checked.
source "$(dirname "$0")/common.sh"
check() {  # FILE RANKS SETUPS ITERATIONS LAYOUTS MESSAGES_PER_RANK
  python3 - "$@" <<'PY'
import json, sys
path, ranks, setups, iterations, layouts, messages = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
records = [json.loads(line) for line in open(path)]
assert records[0]["record"] == "header" and records[0]["probe"] == "halo", records[0]
halo = [r for r in records if r["record"] == "halo"]
assert len(halo) == ranks * setups * layouts, (len(halo), ranks, setups, layouts)
labels = {r["setup"] for r in halo}
assert len(labels) == setups, labels
for r in halo:
    assert r["status"] == "ok" and r["payload"]["check"] == "intact", (r["setup"], r["payload"])
    assert r["n"] == iterations and len(r["iteration_ns"]["samples"]) == iterations
    assert r["messages_sent"] == messages and len(r["pack"]) == messages
    assert r["setup"].startswith(r["variant"] + " " + r["send"]) and r["launch"]["blocks"] >= 1
    assert (r["variant"] == "baseline") == (r["signal"] is None)
    assert (r["variant"] == "notify-stacked") == (r["stacked_long_bytes"] is not None)
    memcpy = r["staging"] == "memcpy"
    tl = r["timeline"]
    kept = {"all": iterations, "median": 1, "none": 0}[tl["kept"]]
    assert len(tl["iterations"]) == len(tl["iteration_index"]) == kept, (tl["kept"], tl["iteration_index"])
    if tl["kept"] == "median":
        totals = r["iteration_ns"]["samples"]
        assert tl["iterations"][0]["total_ns"] == sorted(totals)[len(totals) // 2]
        assert totals[tl["iteration_index"][0]] == tl["iterations"][0]["total_ns"]
    for it in tl["iterations"]:
        assert len(it["pack_start_ns"]) == messages and len(it["send_ns"]) == messages
        assert all(0 <= s <= it["total_ns"] for s in it["send_ns"]), it["send_ns"]
        assert len(it["copy_end_ns"]) == (messages if memcpy else 0)
        assert all(c <= s for c, s in zip(it["copy_end_ns"], it["send_ns"]))  # copied, then sent
    assert (r["rank"] == 0) == (r["slowest_rank_iteration_ns"] is not None)
    if r["rank"] == 0:
        assert all(s >= t for s, t in zip(r["slowest_rank_iteration_ns"]["samples"], r["iteration_ns"]["samples"]))
models = [r for r in records if r["record"] == "halo_model"]
assert len(models) == layouts and all(set(m["lower_bound_ns"]) == labels for m in models)
print(f"{path}: {len(halo)} halo records ok")
PY
}
"${mpirun[@]}" "$HETPROBE" halo --device host --cube 200 --iterations 4 --warmup 1 --quiet --out "$work/pair.jsonl" >/dev/null
check "$work/pair.jsonl" 2 3 4 1 26
# The thesis's matrix: baseline 2 sends x 2 waits x 2 stagings, each notify variant 2 x 2 signals x 2.
"${mpirun[@]}" "$HETPROBE" halo --device host --cube 40 --iterations 2 --warmup 1 --send isend,send \
  --recv-wait waitall,testany --signal channel,queue --staging pinned,memcpy --quiet --out "$work/matrix.jsonl" >/dev/null
check "$work/matrix.jsonl" 2 24 2 1 26
mpirun4=("${mpirun[@]}")
mpirun4[2]=4  # "mpirun -np 2 ..." -> 4 ranks: a 2x2x1 grid, self messages included
"${mpirun4[@]}" "$HETPROBE" halo --device host --cube 40 --peers grid --iterations 3 --warmup 1 --signal queue \
  --staging memcpy --timeline median --quiet --out "$work/grid.jsonl" >/dev/null
check "$work/grid.jsonl" 4 3 3 1 26
printf '# two messages each way\n0 1 1KiB\n1 0 1KiB\n0 1 13\n1 0 13\n' >"$work/layout.txt"
"${mpirun[@]}" "$HETPROBE" halo --device host --layout-file "$work/layout.txt" --iterations 3 --warmup 1 --quiet \
  --long-bytes 1KiB --timeline none --out "$work/file.jsonl" >/dev/null
check "$work/file.jsonl" 2 3 3 1 2
