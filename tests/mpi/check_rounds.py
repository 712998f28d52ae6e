"""The records of tests/mpi/rounds.sh's runs, checked: each round visits a size's points in its own shuffled
order, --seed replays it and another seed gives another, --gap is recorded and honoured, a gap's cold and
warm sends interleave in an order --seed replays, and the receiver checks one payload a visit (every one with
--check-every). An AssertionError names the first thing that is off.

    check_rounds.py WORK_DIRECTORY   (a.jsonl, b.jsonl, c.jsonl, g.jsonl, g2.jsonl, g3.jsonl, e.jsonl, s.jsonl)
"""

import json
import sys

work = sys.argv[1]


def orders(name):
    recs = [json.loads(line) for line in open(f"{work}/{name}.jsonl")]
    header = recs[0]
    points = [r for r in recs if r.get("record") == "point"]
    # Per size and round: the points in the order they were visited.
    out = {}
    for p in points:
        key = (p["layout"], p["load_kind"])
        for rnd, pos in enumerate(p["round_positions"]):
            out.setdefault((p["size_bytes"], rnd), {})[pos] = key
    return header, {k: [v[i] for i in sorted(v)] for k, v in out.items()}, points


ha, a, pa = orders("a")
hb, b, _ = orders("b")
hc, c, _ = orders("c")
hg, g, pg = orders("g")
hs, s, ps = orders("s")
assert ha["config"]["seed"] == 7 and hc["config"]["seed"] == 8, (ha["config"]["seed"], hc["config"]["seed"])
assert a == b, "the same seed did not replay the same orders"
assert a != c, "another seed gave the same orders"
rounds = [a[(1024, r)] for r in range(6)]
assert len({tuple(o) for o in rounds}) > 1, f"every round visited the points in one order: {rounds[0]}"
assert all(len(o) == 5 for o in rounds), rounds
assert a == g, "the gap changed the orders"
# --gap: recorded, and the sender spent at least the gap before each send.
assert hg["config"]["gap"] == {"kind": "spin", "seconds": 0.002, "bytes": None, "label": "2ms"}, hg["config"]["gap"]
assert all(p["gap"]["label"] == "2ms" and p["gap"]["spent_ns"] >= 2e6 for p in pg), [p["gap"] for p in pg]
assert all(p["gap"]["label"] == "0" and p["gap"]["spent_ns"] < 1e6 for p in pa), [p["gap"] for p in pa]
# A sweep of 8 MiB reads and writes every line: far more than nothing, here at most ~100 GB/s.
assert all(p["gap"]["bytes"] == 8 << 20 and p["gap"]["spent_ns"] > 10e3 for p in ps), [p["gap"] for p in ps]


# Cold and warm sends of one visit: reps of each sharing its places 0..2 x reps - 1, in an order that
# differs between visits, the same for the same seed, another for another seed.
def visits(points):
    out = {}
    for p in points:
        for kind, t in (("cold", p["send_time_ns"]), ("warm", p["warm_send_time_ns"])):
            for rnd, pos in zip(t["rounds"], t["visit_positions"]):
                out.setdefault((p["size_bytes"], p["layout"], p["load_kind"], int(rnd)), {})[pos] = kind
    return {k: "".join(v[i][0] for i in sorted(v)) for k, v in out.items()}


vg = visits(pg)
assert all(sorted(v) == ["c", "c", "w", "w"] for v in vg.values()), vg
assert len(set(vg.values())) > 1, f"every visit timed its cold and warm sends in one order: {set(vg.values())}"
assert vg == visits(orders("g2")[2]), "the same seed did not replay the cold and warm order"
assert vg != visits(orders("g3")[2]), "another seed gave the same cold and warm order"
for p in pg:  # cold / warm paired by round, with its interval (6 rounds)
    per_round = [r for r in p["cold_over_warm_rounds"] if r is not None]
    assert len(per_round) == 6 and p["cold_over_warm_median"] > 0, p["cold_over_warm_rounds"]
    low, high = p["cold_over_warm_ci95"]
    assert low <= p["cold_over_warm_median"] <= high, (low, p["cold_over_warm_median"], high)
    assert p["warm_send_time_ns"]["n"] == p["n"] == 12, (p["warm_send_time_ns"]["n"], p["n"])
assert all(p["warm_send_time_ns"] is None and p["cold_over_warm_median"] is None for p in pa)
# The receiver checks each visit's last payload by default (one a round here), every one with --check-every.
assert all(p["payload"]["policy"] == "last of each visit" and p["payload"]["checked_samples"] == 6 for p in pa)
assert all(p["payload"]["check"] == "intact" and len(p["payload"]["mismatched_bytes"]) == 6 for p in pa)
pe = orders("e")[2]
assert all(p["payload"]["policy"] == "every send" and p["payload"]["checked_samples"] == p["n"] == 12 for p in pe)
print(
    "rounds: orders differ between rounds, replay with --seed, gap recorded and honoured, cold and warm "
    "interleaved and replayed"
)
