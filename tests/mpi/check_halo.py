"""The records of a halo run on the host backend, checked field by field (tests/mpi/halo.sh runs it
after each run): every setup's record per rank, every payload intact, the timeline, the parts and
rates, and the model. An AssertionError names the first thing that is off.

    check_halo.py FILE RANKS SETUPS ITERATIONS LAYOUTS MESSAGES_PER_RANK
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from statistics import median

# The package's JSON Lines reader (pybindings/hetprobe/data/jsonl.py, standard library only), by path:
# the records hetprobe.load reads.
_SOURCE = Path(__file__).resolve().parents[2] / "pybindings" / "hetprobe" / "data" / "jsonl.py"
_spec = importlib.util.spec_from_file_location("hetprobe_jsonl", _SOURCE)
jsonl = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(jsonl)


def near(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))


def check(path, ranks: int, setups: int, iterations: int, layouts: int, messages: int) -> int:
    """Asserts every expectation of the file at `path`; returns its number of halo records."""
    records = jsonl.records(path)
    assert records[0]["record"] == "header" and records[0]["probe"] == "halo", records[0]
    halo = [r for r in records if r["record"] == "halo"]
    assert len(halo) == ranks * setups * layouts, (len(halo), ranks, setups, layouts)
    labels = {r["setup"] for r in halo}
    assert len(labels) == setups, labels
    for r in halo:
        assert r["status"] == "ok" and r["payload"]["check"] == "intact", (r["setup"], r["payload"])
        assert r["n"] == iterations and len(r["iteration_ns"]["samples"]) == iterations
        # In rounds: each round visited every setup once, with the same number of timed iterations.
        rounds = records[0]["config"]["rounds"]
        per_round = [r["iteration_ns"]["rounds"].count(k) for k in range(rounds)]
        assert r["rounds"] == rounds and per_round == [iterations // rounds] * rounds, per_round
        assert len(r["iteration_ns"]["round_medians"]) == rounds
        if r["rank"] == 0:  # the paired speed-up over the strongest baseline, one ratio per round
            sp = r["speedup"]
            assert sp["against"].startswith("baseline ") and len(sp["rounds"]) == rounds, sp
            assert sp["median"] > 0 and (sp["ci95"] is None) == (rounds < 6)
        else:
            assert r["speedup"] is None and r["slowest_rank_iteration_ns"] is None
        assert r["messages_sent"] == messages and len(r["pack"]) == messages
        assert r["setup"].startswith(r["variant"] + " " + r["send_mode"]) and r["launch"]["blocks"] >= 1
        assert "send" not in r and r["send_mode"] in records[0]["config"]["send_mode"], r["send_mode"]
        assert (r["variant"] == "baseline") == (r["signal"] is None)
        grid_form = r["variant"] == "notify-stacked" and r["parts"] == "whole"  # the paper's: long ones on the grid
        assert grid_form == (r["stacked_long_bytes"] is not None), (r["setup"], r["stacked_long_bytes"])
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
            assert len(it["recv_copy_end_ns"]) == (len(r["unpack"]) if memcpy else 0)
            assert all(v <= c for v, c in zip(it["recv_ns"], it["recv_copy_end_ns"]))  # received, then copied
            cp = it["critical_path_ns"]
            assert cp["total"] == it["total_ns"] and cp["last_send"] == max(it["send_ns"]), cp
            assert (cp["last_recv_copy_end"] is not None) == memcpy
        # Rates and copies per message; the launches and the parts asked for.
        # auto resolves to a size, in every variant; whole stays whole.
        assert r["parts"] in ("auto", "whole") and "part_bytes" not in r["launch"], r["launch"]
        parts = r["launch"]["parts"]
        assert parts == "whole" if r["parts"] == "whole" else isinstance(parts, int) and parts >= 16, parts
        assert (r["unpack_launch"] is None) == (r["variant"] == "notify-stacked")
        for m in r["pack"] + r["unpack"]:
            ns = m.get("pack_ns_median", m.get("unpack_ns_median"))
            gbs = m.get("pack_gbs_median", m.get("unpack_gbs_median"))
            assert (gbs is None) if ns == 0 else abs(gbs - m["bytes"] / ns) <= 1e-9 * gbs, m
            assert ("copy_ns_median" in m) == memcpy, m
        if memcpy and tl["kept"] == "all":  # a copy's median: from the timeline's every iteration
            its = tl["iterations"]
            for i, m in enumerate(r["pack"]):
                assert near(m["copy_ns_median"], median(it["copy_end_ns"][i] - it["pack_end_ns"][i] for it in its)), m
            for i, m in enumerate(r["unpack"]):
                assert near(m["copy_ns_median"], median(it["recv_copy_end_ns"][i] - it["recv_ns"][i] for it in its)), m
        cp = r["critical_path_ns"]
        assert cp["total"] == r["iteration_ns"]["median"]  # the median of each phase
        # Ordered within a clock (device stamps are mapped to the host clock, within the fit's precision).
        assert cp["pack_start"] <= cp["pack_end"] and cp["last_send"] <= cp["total"], cp
        assert (r["rank"] == 0) == (r["slowest_rank_iteration_ns"] is not None)
        if r["rank"] == 0:
            assert all(s >= t for s, t in zip(r["slowest_rank_iteration_ns"]["samples"], r["iteration_ns"]["samples"]))
    models = [r for r in records if r["record"] == "halo_model"]
    assert len(models) == layouts and all(set(m["lower_bound_ns"]) == labels for m in models)
    return len(halo)


if __name__ == "__main__":
    path, *counts = sys.argv[1:]
    found = check(path, *map(int, counts))
    print(f"{path}: {found} halo records ok")
