"""The records of a per-device probe run by 3 ranks on 3 simulated devices (tests/mpi/turns.sh), checked:
each rank its own device, device 1 marked slowed, every rank's records, and the ranks' measuring spans in turn
(not overlapping) or concurrent (overlapping). With "slow", rank 1 must be clearly slower than both others in
each rank's best reading over the runs (a busy machine can hide it in one run). Exit 1 (an AssertionError) on
a wrong file; 3 when only the slowdown is not seen.

    check_turns.py FILES PROBE in-turn|concurrent [slow]   (FILES comma-separated runs)
"""

import json
import sys

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
    assert all(by_rank.values()) and len({len(v) for v in by_rank.values()}) == 1, {
        r: len(v) for r, v in by_rank.items()
    }
    # When each rank measured: from its start to its last record.
    spans = []
    for r in range(3):
        started = {x["rank_started_unix_s"] for x in by_rank[r]}
        assert len(started) == 1, started
        spans.append((started.pop(), max(x["finished_unix_s"] for x in by_rank[r])))
    print(
        f"{path}: measuring spans relative to rank 0's start (s):",
        [(round(a - spans[0][0], 3), round(b - spans[0][0], 3)) for a, b in spans],
    )
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
    runs = [
        ([x for x in rec if plain(x)], {r: [x for x in xs if plain(x)] for r, xs in by.items()}) for rec, by in runs
    ]
    key, value, slower = "writer", lambda x: x["median_gbs"], lambda mine, other: mine * 1.5 < other
    best = max
seen = True
for k in sorted({x[key] for rec, _ in runs for x in rec}):
    v = [best(value(x) for _, by in runs for x in by[r] if x[key] == k) for r in range(3)]
    print(f"  {k}: ranks 0, 1, 2 (best of {len(runs)}): {v}")
    seen = seen and slower(v[1], v[0]) and slower(v[1], v[2])
sys.exit(0 if seen else 3)
