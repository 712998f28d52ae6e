#!/usr/bin/env bash
# Per-device probes under 3 ranks on the host backend's 3 simulated devices,
# device 1 slowed 3x (HETPROBE_HOST_SLOW=1:3): every rank's records, each rank
# its own device; by default the ranks take turns (their measuring times do
# not overlap), with --concurrent they measure at once; rank 1 is the slow one
# in notify's round trips and bandwidth's plain passes.
source "$(dirname "$0")/common.sh"
mpirun3=("${mpirun[@]}")
mpirun3[2]=3 # "mpirun -np 2 ..." -> 3 ranks
export HETPROBE_HOST_DEVICES=3 HETPROBE_HOST_SLOW=1:3
hp() { "${mpirun3[@]}" "$HETPROBE" "$@" --device host --quiet >/dev/null; }

# check.py FILES PROBE in-turn|concurrent [slow]: FILES comma-separated runs;
# exit 1 on a wrong file; exit 3 when only the slowdown is not seen in the best
# (lowest-time) reading of each rank over the runs (a busy machine can hide it
# in one run).
cat >"$work/check.py" <<'PY'
import json, statistics, sys
paths, probe, mode = sys.argv[1].split(","), sys.argv[2], sys.argv[3]
slow = len(sys.argv) > 4


def shape(path):
    """The file's records by rank, after checking its shape."""
    lines = [json.loads(line) for line in open(path)]
    header, records = lines[0], lines[1:]
    assert header["record"] == "header" and header["probe"] == probe, header
    assert header["ranks_in_turn"] == (mode == "in-turn"), header["ranks_in_turn"]
    devices = [r["device"] for r in header["ranks"]]
    assert [r["rank"] for r in header["ranks"]] == [0, 1, 2]
    assert [d["ordinal"] for d in devices] == [0, 1, 2], "each rank its own device"
    assert devices[1]["simulated_slowdown"] == 3 and devices[1]["name"].endswith("(slowed x3 by HETPROBE_HOST_SLOW)")
    assert all("simulated_slowdown" not in devices[i] and "slowed" not in devices[i]["name"] for i in (0, 2))
    by_rank = {r: [x for x in records if x["rank"] == r] for r in range(3)}
    assert all(by_rank.values()) and len({len(v) for v in by_rank.values()}) == 1, {r: len(v) for r, v in by_rank.items()}
    # When each rank measured: from its start to its last record.
    spans = []
    for r in range(3):
        started = {x["rank_started_unix_s"] for x in by_rank[r]}
        assert len(started) == 1, started
        spans.append((started.pop(), max(x["finished_unix_s"] for x in by_rank[r])))
    print(f"{path}: measuring spans relative to rank 0's start (s):",
          [(round(a - spans[0][0], 3), round(b - spans[0][0], 3)) for a, b in spans])
    if mode == "in-turn":
        assert all(spans[r][1] <= spans[r + 1][0] for r in range(2)), "turns overlap"
    else:
        assert max(a for a, _ in spans) < min(b for _, b in spans), "concurrent ranks did not measure at once"
    return records, by_rank


runs = [shape(path) for path in paths]
if not slow:
    sys.exit(0)
# Rank 1 clearly slower than both others, in each measurement (key), taking each
# rank's best reading over the runs: a turn starved by other work reads slow
# for its whole length, never fast.
if probe == "notify":
    key, value, slower = "direction", lambda x: x["roundtrip_ns"]["median"], lambda mine, other: mine > 1.5 * other
    best = min
else:
    plain = lambda x: x["record"] == "point" and x["writer"].startswith("plain")  # noqa: E731
    runs = [([x for x in rec if plain(x)], {r: [x for x in xs if plain(x)] for r, xs in by.items()}) for rec, by in runs]
    key, value, slower = "writer", lambda x: x["median_gbs"], lambda mine, other: mine * 1.5 < other
    best = max
seen = True
for k in sorted({x[key] for rec, _ in runs for x in rec}):
    v = [best(value(x) for _, by in runs for x in by[r] if x[key] == k) for r in range(3)]
    print(f"  {k}: ranks 0, 1, 2 (best of {len(runs)}): {v}")
    seen = seen and slower(v[1], v[0]) and slower(v[1], v[2])
sys.exit(0 if seen else 3)
PY
check() { python3 "$work/check.py" "$@"; }

# The slowdown: up to 5 tries, for a busy machine's sake: where other work
# takes a CPU, a rank's two threads (host and "device") share the other one
# and its round trips jump from ~0.2 us to ~130 us for its whole turn, which
# hides a 3x slowdown when it happens to another rank's turn than the slowed
# one's. The file's shape must hold every time.
slowdown_seen() {  # PROBE ARGS...
  local probe=$1 try rc
  shift
  local files=""
  for try in 1 2 3 4 5; do
    hp "$probe" "$@" --out "$work/$probe-$try.jsonl"
    files+=${files:+,}$work/$probe-$try.jsonl
    rc=0
    check "$files" "$probe" in-turn slow || rc=$?
    [[ $rc == 0 ]] && return 0
    [[ $rc == 3 ]] || exit 1
    echo "try $try: rank 1 (slowed 3x) not clearly slower than ranks 0 and 2 in the best of the runs so far (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
  done
  exit 1
}
slowdown_seen notify --parts roundtrip --orders volatile --exchanges 300 --warmup 10
slowdown_seen bandwidth --size 16MiB --reps 5 --duration 0.02 --load none
# clock runs at least --span + --check-after per rank: long enough that
# --concurrent ranks overlap however the scheduler starts them.
clock=(clock --span 0.3 --batches 2 --check-after 0.1 --samples 20)
hp "${clock[@]}" --out "$work/clock.jsonl"
check "$work/clock.jsonl" clock in-turn
hp "${clock[@]}" --concurrent --out "$work/clock-concurrent.jsonl"
check "$work/clock-concurrent.jsonl" clock concurrent
