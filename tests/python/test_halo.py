"""The halo probe's records in Python: loading, the table, the critical path, the rates and the plots,
on the committed H200 x2 run, on hand-made records and on a fresh host-backend run through mpirun."""

import importlib
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from conftest import REPO, RUNS, jsonl_records, run_on_host, write_jsonl

import hetprobe
from hetprobe.data.halo import PHASES

HALO = RUNS / "h200x2-halo" / "paper-1.jsonl.gz"  # the paper's configuration, launch 1 of 3


def rank0_halo(path):
    return [r for r in jsonl_records(path) if r["record"] == "halo" and r.get("rank") == 0]


def test_the_table_matches_the_records():
    r = hetprobe.load(HALO)
    table = hetprobe.data.halo_table(r)
    records = rank0_halo(HALO)
    assert len(table) == len(records) == 3 * 6 and set(table["cube"]) == {200, 400, 800}
    for rec in records:
        row = table[(table["layout"] == rec["layout"]) & (table["setup"] == rec["setup"])].iloc[0]
        assert row["median_us"] == pytest.approx(rec["iteration_ns"]["median"] / 1e3)
        assert row["payload"] == "intact"
        # the thesis's comparison: the fastest baseline of the same layout, send mode and threads
        base = min(
            b["iteration_ns"]["median"]
            for b in records
            if b["variant"] == "baseline"
            and b["layout"] == rec["layout"]
            and b["send_mode"] == rec["send_mode"]
            and b["threads_per_block"] == rec["threads_per_block"]
        )
        assert row["speedup_vs_baseline"] == pytest.approx(base / rec["iteration_ns"]["median"])
        # the strongest baseline: the fastest of the layout (the slowest rank's median), paired by round
        best = min(
            (b for b in records if b["variant"] == "baseline" and b["layout"] == rec["layout"]),
            key=lambda b: b["slowest_rank_iteration_ns"]["median"],
        )
        assert rec["speedup"]["against"] == best["setup"]
        assert row["speedup_vs_best_baseline"] == pytest.approx(rec["speedup"]["median"])
        low, high = rec["speedup"]["ci95"]
        assert low <= row["speedup_vs_best_baseline"] <= high and len(rec["speedup"]["rounds"]) == 10
        assert row["parts"] in ("auto", "whole")
    assert (table["model_lower_bound_us"] < table["median_us"]).all()  # a lower bound


def test_halo_samples_are_every_iteration():
    r = hetprobe.load(HALO)
    samples = r.samples[(r.samples["probe"] == "halo") & (r.samples["metric"] == "iteration_ns")]
    assert len(samples) == 2 * 18 * 50  # 2 ranks x (3 cubes x 6 setups) x 10 rounds x 5 iterations


def test_plots_of_the_committed_run(tmp_path):
    r = hetprobe.load(HALO)
    fig = hetprobe.plots.halo_times(
        r,
        path=tmp_path / "times.png",
        setups=["baseline isend waitall pinned 128t", "notify-stream isend channel pinned 128t"],
    )
    assert len(fig.axes) == 1 and (tmp_path / "times.png").stat().st_size > 10_000
    assert len(fig.axes[0].patches) == 2 * 3  # two setups x three cubes
    rec = next(x for x in rank0_halo(HALO) if x["cube"] == 800)
    fig = hetprobe.plots.halo_timeline(
        r, rec["layout"], "notify-stream isend channel pinned 128t", path=tmp_path / "timeline.png"
    )
    assert len(fig.axes[0].get_yticklabels()) == 52  # 26 sends + 26 receives
    with pytest.raises(hetprobe.UsageError):
        hetprobe.plots.halo_timeline(r, rec["layout"], "no-such-variant")
    with pytest.raises(hetprobe.UsageError, match="not kept"):  # only the median iteration's timeline is kept
        hetprobe.plots.halo_timeline(r, rec["layout"], "baseline", iteration=rec["timeline"]["iteration_index"][0] ^ 1)


def test_phases_are_the_records_critical_path():
    r = hetprobe.load(HALO)
    phases = hetprobe.data.halo_phases(r, setups=["notify-stacked isend channel pinned 128t"])
    assert sorted(phases["cube"]) == [200, 400, 800]
    for rec in rank0_halo(HALO):
        if rec["setup"] != "notify-stacked isend channel pinned 128t":
            continue
        path = rec["critical_path_ns"]
        row = phases[phases["cube"] == rec["cube"]].iloc[0]
        assert row["total_us"] == pytest.approx(path["total"] / 1e3)
        assert row["last_send_us"] == pytest.approx(path["last_send"] / 1e3)
        assert row["pack_start_us"] <= row["pack_end_us"] <= row["last_send_us"] <= row["total_us"]
        assert row["largest_bytes"] == max(m["bytes"] for m in rec["unpack"])
        assert math.isnan(row["last_recv_copy_end_us"])  # pinned staging: no receive copies


def test_records_without_critical_paths_are_left_out_not_computed_again(tmp_path):
    """The critical path is the probe's (bench/halo/halo_phases.hpp): records from before it wrote one
    are left out, and Python does not compute it a second way."""
    header, (old, new) = committed(400, "notify-stacked isend channel pinned 128t", SETUP)
    del old["critical_path_ns"]  # as files from before the probe wrote it
    phases = hetprobe.data.halo_phases(hetprobe.load(write_jsonl(tmp_path / "old.jsonl", [header, old, new])))
    assert phases["setup"].tolist() == [SETUP]
    with pytest.raises(hetprobe.UsageError, match="no rank-0 halo record with a critical path"):
        hetprobe.data.halo_phases(hetprobe.load(write_jsonl(tmp_path / "older.jsonl", [header, old])))


SETUP = "notify-stream isend channel pinned 128t"


def committed(cube: int, *setups: str) -> tuple[dict, list[dict]]:
    """The committed file's header and rank 0's records of `setups` for `cube`, to build small files from."""
    records = jsonl_records(HALO)
    picked = [r for r in records if r["record"] == "halo" and r["rank"] == 0 and r["cube"] == cube]
    return records[0], [next(r for r in picked if r["setup"] == s) for s in setups]


def test_phases_come_from_the_records_critical_path(tmp_path):
    header, (rec,) = committed(800, SETUP)
    rec["critical_path_ns"] = {name: 1000.0 * (k + 1) for k, name in enumerate(PHASES)}
    rec["critical_path_ns"]["last_recv_copy_end"] = None  # pinned staging: no receive copies
    rec["timeline"].update(kept="none", iteration_index=[], iterations=[])  # the medians need no timeline
    r = hetprobe.load(write_jsonl(tmp_path / "halo.jsonl", [header, rec]))
    row = hetprobe.data.halo_phases(r).iloc[0]
    assert row["setup"] == SETUP
    for k, name in enumerate(PHASES[:-1]):
        assert row[f"{name}_us"] == pytest.approx(k + 1.0), name
    assert math.isnan(row["last_recv_copy_end_us"])
    assert row["largest_bytes"] == 960000


# --- per-message rates against `hetprobe bandwidth`'s plain kernels ---------------------------------


def rate_files(tmp_path, auto_gbs=(40.0, 30.0), whole_gbs=(10.0, 5.0), references=(50.0, 40.0)):
    """A halo file of two cube-400 setups (parts auto and whole) whose messages move at (pack, unpack)
    GB/s, and a bandwidth file whose rank 0 has plain write and read kernels at `references` (rank 1:
    other rates, not the reference)."""
    header, recs = committed(400, SETUP, "baseline isend waitall pinned 128t")
    for rec, parts, (pack, unpack) in zip(recs, ("auto", "whole"), (auto_gbs, whole_gbs)):
        rec["parts"] = parts
        rec.pop("pack_busy"), rec.pop("unpack_busy")  # as files from before busy rates
        for m in rec["pack"]:
            m["pack_gbs_median"] = pack
        for m in rec["unpack"]:
            m["unpack_gbs_median"] = unpack
    halo = write_jsonl(tmp_path / "halo.jsonl", [header, *recs])
    bw = jsonl_records(RUNS / "h200x2-load" / "bandwidth.jsonl")
    plain = {"plain one-pass kernel": references[0], "plain read": references[1]}
    rows = [dict(r, median_gbs=plain[r["writer"]], rank=0) for r in bw[1:] if r.get("writer") in plain]
    rows += [dict(r, median_gbs=1.0, rank=1) for r in rows]
    return halo, write_jsonl(tmp_path / "bandwidth.jsonl", [bw[0], *rows])


def test_rates_of_long_messages_against_the_plain_kernels(tmp_path):
    halo, bw = rate_files(tmp_path)
    rates = hetprobe.halo_rates(halo, bw)
    assert set(rates["bytes"]) == {240000}  # the 6 faces; edges and vertices are under 64 KiB
    assert len(rates) == 2 * 2 * 6  # setups x directions x faces
    auto = rates[rates["parts"] == "auto"].set_index("direction")
    assert auto["judged"].all() and not rates[rates["parts"] == "whole"]["judged"].any()
    assert auto.loc["pack", "reference"].eq("write").all() and auto.loc["unpack", "reference"].eq("read").all()
    assert auto.loc["pack", "ratio"].tolist() == pytest.approx([40 / 50] * 6)
    assert auto.loc["unpack", "ratio"].tolist() == pytest.approx([30 / 40] * 6)
    # the halo records' times beside them, as written
    _, (rec, _) = committed(400, SETUP, "baseline isend waitall pinned 128t")
    faces = [m["pack_ns_median"] for m in rec["pack"] if m["bytes"] == 240000]
    assert auto.loc["pack", "ns_median"].tolist() == faces
    assert len(hetprobe.halo_rates(hetprobe.load(halo), hetprobe.load(bw), min_bytes=1)) == 2 * 2 * 26


def test_per_message_rates_take_the_long_messages_the_probes_stages_do(tmp_path):
    """What makes a message long is the probe's (halo_phases.hpp's kHaloLongMessageBytes, which each
    busy rate records as its min_bytes); the per-message rows read it from the records, so both take
    the same messages of each record: cube 200's faces (60000 B) are in neither, the larger cubes'
    faces in both."""
    _, bw = rate_files(tmp_path)
    rows = hetprobe.halo_rates(HALO, bw)
    records = rank0_halo(HALO)
    assert {r["cube"] for r in records if r["pack_busy"] is None} == {200}
    for rec in records:
        for direction in ("pack", "unpack"):
            mine = rows[(rows["layout"] == rec["layout"]) & (rows["setup"] == rec["setup"])]
            mine = mine[mine["direction"] == direction]
            stage = rec[f"{direction}_busy"]
            taken = (stage["messages"], stage["bytes"]) if stage else (0, 0)
            assert (len(mine), int(mine["bytes"].sum())) == taken, (rec["setup"], rec["cube"], direction)


def test_older_records_take_the_probes_threshold_from_the_compiled_module(tmp_path, monkeypatch):
    """Files from before the busy rates do not say which messages are long: the threshold is C++'s,
    read through hetprobe._core; a bare interpreter without it asks for min_bytes."""
    halo_rates = importlib.import_module("hetprobe.data.halo_rates")  # the module, not the function of its name
    halo, bw = rate_files(tmp_path)  # no busy rates
    assert hetprobe._core.halo_long_message_bytes == 65536
    rows = hetprobe.halo_rates(halo, bw)
    assert rows["bytes"].min() >= 65536 and rows.equals(hetprobe.halo_rates(halo, bw, min_bytes=65536))
    assert len(hetprobe.halo_rates(halo, bw, min_bytes=1)) > len(rows)
    monkeypatch.setattr(halo_rates, "_probe_threshold", lambda: None)
    with pytest.raises(hetprobe.UsageError, match="does not say which messages are long.*give --min-bytes"):
        hetprobe.halo_rates(halo, bw)


def without_rates(tmp_path):
    """A halo file as written before the probe recorded per-message rates."""
    header, recs = committed(400, SETUP)
    for rec in recs:
        for m in rec["pack"] + rec["unpack"]:
            m.pop("pack_gbs_median", None), m.pop("unpack_gbs_median", None)
    return write_jsonl(tmp_path / "no-rates.jsonl", [header, *recs])


def test_rates_need_rates_and_both_references(tmp_path):
    halo, bw = rate_files(tmp_path)
    with pytest.raises(hetprobe.UsageError, match="no per-message rates"):
        hetprobe.halo_rates(without_rates(tmp_path), bw)
    no_read = [r for r in jsonl_records(bw) if r.get("writer") != "plain read"]
    with pytest.raises(hetprobe.UsageError, match="'plain read'"):
        hetprobe.halo_rates(halo, write_jsonl(tmp_path / "write-only.jsonl", no_read))


def rates_script(*args):
    """tests/gpu/halo_rates.py as a CI job runs it: a bare interpreter, the package not on the path."""
    script = REPO / "tests" / "gpu" / "halo_rates.py"
    return subprocess.run([sys.executable, "-I", str(script), *map(str, args)], capture_output=True, text=True)


def test_rates_script_judges_only_auto_parts(tmp_path):
    halo, bw = rate_files(tmp_path)
    done = rates_script(halo, bw)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "plain write kernel 50.00 GB/s (pack), plain read kernel 40.00 GB/s (unpack)" in out
    assert out.count(" 240000 ") == 2 * 2 * 6
    assert "min ratio 0.750 over 12 messages: ok (minimum 0.7)" in out
    assert "min ratio 0.125 over 12 messages: reported, not judged (parts not auto, or memcpy staging)" in out
    assert "1 setups judged (pinned, parts auto), 0 under 0.7 or above a bound; 1 reported only; 0 with a" in out
    done = rates_script(halo, bw, "--min-ratio", "0.76")  # the unpacks (0.75) fall short
    assert done.returncode == 1 and "min ratio 0.750 over 12 messages: UNDER (minimum 0.76)" in done.stdout
    done = rates_script(without_rates(tmp_path), bw)
    assert done.returncode == 2 and "no per-message rates" in done.stdout


def with_busy(halo, pack_gbs, unpack_gbs, **link):
    """The rate_files halo file with each record's stages at these busy rates (6 faces of 240000 B),
    and `link` (link_gbs, above_link: what hetprobe halo writes) in each."""
    records = jsonl_records(halo)
    for rec in records[1:]:
        for field, gbs in (("pack_busy", pack_gbs), ("unpack_busy", unpack_gbs)):
            bytes_ = 6 * 240000
            rec[field] = {
                "min_bytes": 65536,
                "messages": 6,
                "bytes": bytes_,
                "busy_ns_median": bytes_ / gbs,
                "gbs_median": gbs,
                **link,
            }
    return write_jsonl(halo, records)


def test_a_stage_above_the_link_is_a_timing_error(tmp_path):
    # The rule is hetprobe halo's (above_link in the record); the script reads it, never recomputes it.
    halo, bw = rate_files(tmp_path, auto_gbs=(10.0, 8.0))
    with_busy(halo, 45.0, 30.0, link_gbs=55.0, above_link=False)
    done = rates_script(halo, bw)
    assert done.returncode == 0 and "above its bound" not in done.stdout.split("\n\n")[-2], done.stdout
    assert "   55.00" in done.stdout  # the link beside each stage
    records = jsonl_records(halo)
    records[1]["pack_busy"]["above_link"] = True  # the auto setup's pack
    records[2]["unpack_busy"]["above_link"] = True  # the whole setup: not judged, still an error
    write_jsonl(halo, records)
    done = rates_script(halo, bw)
    assert done.returncode == 1, done.stdout
    assert "TIMING ERROR: pack above its bound; UNDER (minimum 0.7)" in done.stdout
    assert "TIMING ERROR: unpack above its bound; reported, not judged" in done.stdout
    assert "; 2 with a stage above its bound (a timing error)" in done.stdout
    stages = hetprobe.halo_rates(halo, bw, per="stage")
    assert stages["above_bound"].tolist() == [True, False, False, True]


def test_memcpy_stages_are_held_to_their_own_references(tmp_path):
    # memcpy staging: the copies shown against the run's link, the kernels against device memory
    # (far below it); neither judged, but each stage above its own bound is a timing error.
    halo, bw = rate_files(tmp_path, auto_gbs=(10.0, 8.0))
    with_busy(halo, 45.0, 30.0, device_gbs=1500.0, above_device=False)
    records = jsonl_records(halo)
    for rec in records[1:]:
        rec["staging"] = "memcpy"
        for field, gbs, link in (("copy_busy", 44.0, 55.0), ("recv_copy_busy", 36.0, 50.0)):
            rec[field] = dict(rec["pack_busy"], gbs_median=gbs, link_gbs=link, above_link=False)
            rec[field].pop("device_gbs"), rec[field].pop("above_device")
    write_jsonl(halo, records)
    stages = hetprobe.halo_rates(halo, bw, per="stage")
    auto = stages[stages["parts"] == "auto"].set_index("direction")
    assert auto["reference"].to_dict() == {
        "pack": "device memory",
        "unpack": "device memory",
        "copy": "link",
        "recv_copy": "link",
    }
    assert auto.loc["pack", "ratio"] == pytest.approx(45 / 1500) and auto.loc["copy", "ratio"] == pytest.approx(0.8)
    assert auto.loc["recv_copy", "ratio"] == pytest.approx(0.72) and not auto["stage_judged"].any()
    assert auto.loc["pack", "bound_gbs"] == 1500.0 and auto.loc["copy", "bound_gbs"] == 55.0
    done = rates_script(halo, bw)
    assert done.returncode == 0, done.stdout
    assert "recv_copy 0.720 (lowest message 0.200): reported, not judged (parts not auto, or memcpy staging)" in (
        done.stdout
    )
    assert "device memory" in done.stdout and "(shown, not judged)" in done.stdout
    assert "0 setups judged (pinned, parts auto), 0 under 0.7 or above a bound; 2 reported only" in done.stdout
    records[1]["unpack_busy"]["above_device"] = True  # faster than device memory: a timing error
    records[2]["copy_busy"]["above_link"] = True  # a copy faster than the link: one too
    write_jsonl(halo, records)
    done = rates_script(halo, bw)
    assert done.returncode == 1, done.stdout
    assert "TIMING ERROR: unpack above its bound; reported, not judged" in done.stdout
    assert "TIMING ERROR: copy above its bound; reported, not judged" in done.stdout


def test_stages_are_judged_on_their_busy_rates(tmp_path):
    # Each message alone at 0.2 of the reference (6 faces sharing the link), the stages at 0.9 and 0.75.
    halo, bw = rate_files(tmp_path, auto_gbs=(10.0, 8.0))
    with_busy(halo, 45.0, 30.0)
    stages = hetprobe.halo_rates(halo, bw, per="stage")
    assert len(stages) == 2 * 2 and set(stages["messages"]) == {6}
    auto = stages[stages["parts"] == "auto"].set_index("direction")
    assert auto.loc["pack", "ratio"] == pytest.approx(45 / 50) and auto.loc["unpack", "ratio"] == pytest.approx(30 / 40)
    assert auto.loc["pack", "busy_ns_median"] == pytest.approx(6 * 240000 / 45.0)
    done = rates_script(halo, bw)
    assert done.returncode == 0, done.stdout
    assert "stage ratios pack 0.900, unpack 0.750 (lowest message 0.200): ok (minimum 0.7)" in done.stdout
    assert "  pack             6    1440000" in done.stdout  # the stage's line: messages, bytes
    done = rates_script(halo, bw, "--min-ratio", "0.8")  # the unpack stage (0.75) falls short
    assert done.returncode == 1 and "unpack 0.750 (lowest message 0.200): UNDER (minimum 0.8)" in done.stdout
    # A file from before busy rates: no stage rows, judged per message as before.
    halo_old, _ = rate_files(tmp_path)
    assert hetprobe.halo_rates(halo_old, bw, per="stage").empty
    with pytest.raises(hetprobe.UsageError, match="per='run'"):
        hetprobe.halo_rates(halo, bw, per="run")


def expected_critical_path(rec, it) -> dict:
    """The test's own reading of one iteration's critical path, ns (docs/metrics.md's definition),
    to hold the probe's against: the product computes it once, in C++."""
    largest = max(m["bytes"] for m in rec["unpack"])
    big = [i for i, m in enumerate(rec["unpack"]) if m["bytes"] == largest]
    last = max(big, key=lambda i: it["recv_ns"][i])  # the last of them to arrive
    copies = it.get("recv_copy_end_ns") or []
    return {
        "total": it["total_ns"],
        "pack_start": min(it["pack_start_ns"]),
        "pack_end": max(it["pack_end_ns"]),
        "last_send": max(it["send_ns"]),
        "largest_received": it["recv_ns"][last],
        "largest_unpack_start": it["unpack_start_ns"][last],
        "unpack_end": max(it["unpack_end_ns"]),
        "largest_unpack": float(np.mean([it["unpack_end_ns"][i] - it["unpack_start_ns"][i] for i in big])),
        "last_recv_copy_end": max(copies) if copies else None,
    }


def test_a_fresh_host_run_through_mpirun(tmp_path):
    r = run_on_host(
        "halo", tmp_path / "halo.jsonl", cube=40, rounds=6, iterations=1, signal="channel,queue", staging="memcpy"
    )
    table = hetprobe.data.halo_table(r)
    assert sorted(set(table["variant"])) == ["baseline", "notify-stacked", "notify-stream"]
    assert len(table) == 5  # baseline (waitall) + two notify variants x two signals
    assert (table["payload"] == "intact").all() and (table["n"] == 6).all() and (table["staging"] == "memcpy").all()
    assert (table["parts"] == "auto").all()
    base = table[table["variant"] == "baseline"]["median_us"].iloc[0]
    assert table["speedup_vs_baseline"].tolist() == pytest.approx((base / table["median_us"]).tolist())
    # The speed-up over the strongest baseline, paired round by round: each round's medians of the
    # slowest rank's times, baseline over setup, and the median of those ratios, with its interval.
    recs = {x["setup"]: x for x in r.records if x.get("record") == "halo" and x["rank"] == 0}
    slowest = {k: x["slowest_rank_iteration_ns"] for k, x in recs.items()}
    rounds = {k: x["iteration_ns"]["rounds"] for k, x in recs.items()}
    assert all(sorted(v) == [0, 1, 2, 3, 4, 5] for v in rounds.values())  # one timed iteration per visit
    against = {x["speedup"]["against"] for x in recs.values()}
    assert len(against) == 1 and recs[against.pop()]["variant"] == "baseline"
    for setup, rec in recs.items():
        base_rec = recs[rec["speedup"]["against"]]
        per_round = [
            dict(zip(rounds[base_rec["setup"]], slowest[base_rec["setup"]]["samples"]))[k]
            / dict(zip(rounds[setup], slowest[setup]["samples"]))[k]
            for k in range(6)
        ]
        assert rec["speedup"]["rounds"] == pytest.approx(per_round)
        assert rec["speedup"]["median"] == pytest.approx(float(np.median(per_round)))
        assert rec["speedup"]["ci95"] == pytest.approx([min(per_round), max(per_round)])  # 6 rounds: k = 1
    by_setup = table.set_index("setup")
    for setup, rec in recs.items():
        assert by_setup.loc[setup, "speedup_vs_best_baseline"] == pytest.approx(rec["speedup"]["median"])
        assert by_setup.loc[setup, "vs_best_ci95_low"] == pytest.approx(rec["speedup"]["ci95"][0])
    # The probe's critical path is the test's reading of the same iterations (every one kept).
    for rec in [x for x in r.records if x.get("record") == "halo" and x["rank"] == 0]:
        its = rec["timeline"]["iterations"]
        assert len(its) == 6
        per = [expected_critical_path(rec, it) for it in its]
        for it, mine in zip(its, per):
            assert it["critical_path_ns"] == pytest.approx(mine), rec["setup"]
            assert len(it["recv_copy_end_ns"]) == 26 and mine["last_recv_copy_end"] is not None
        for name in PHASES:
            assert rec["critical_path_ns"][name] == pytest.approx(float(np.median([p[name] for p in per]))), name
        # A send's copy runs from the pack's end (a device stamp put on the host clock by the clock
        # fit) to its host stamp: the difference is known to the fit's precision, no better (on two busy
        # host cores a near-zero copy has come out at -276 ns).
        precision = rec["timeline"]["clock_sync"]["precision_ns"]
        for m in rec["pack"] + rec["unpack"]:
            kind = "pack" if "pack_ns_median" in m else "unpack"
            assert m[f"{kind}_gbs_median"] == pytest.approx(m["bytes"] / m[f"{kind}_ns_median"])
            assert m["copy_ns_median"] >= -precision, (m["copy_ns_median"], precision)
        model = next(x for x in r.records if x.get("record") == "halo_model")
        terms = model["terms"][rec["setup"]]
        face = max(rec["unpack"], key=lambda m: m["bytes"])  # the first of the largest
        assert terms["copy_largest_s"] == pytest.approx(face["copy_ns_median"] * 1e-9)
    layout = table["layout"].iloc[0]
    fig = hetprobe.plots.halo_timeline(r, layout, "notify-stacked isend queue memcpy 128t")
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "copy to host done" in legend and "copy to device done" in legend
    fig = hetprobe.plots.halo_times(r, setups=["baseline", "notify-stream isend queue memcpy 128t"])
    assert len(fig.axes[0].patches) == 2  # one bar per setup, one layout
    with pytest.raises(hetprobe.UsageError):
        hetprobe.plots.halo_times(r, setups=["notify-stream isend channel pinned 128t"])
    # The header's MPI transport: loaded, and halo_table's single_copy column.
    header = r.records[0]
    mechanism = header["mpi"]["transport"]["single_copy"]
    assert r.headers["mpi_single_copy"].tolist() == [mechanism]
    assert table["single_copy"].tolist() == [mechanism] * len(table)
    _merged_mechanisms_compare_with_their_own_baseline(tmp_path / "halo.jsonl", tmp_path / "merged.jsonl")


def _merged_mechanisms_compare_with_their_own_baseline(path, merged):
    """A second segment as if run with another single-copy mechanism, its baseline twice as fast: each
    segment's speed-ups are against its own baseline, not the faster one of the other mechanism."""
    lines = [json.loads(line) for line in open(path)]
    with open(merged, "w") as out:
        for line in lines:
            out.write(json.dumps(line) + "\n")
        for line in lines:
            if line["record"] == "header":
                line["mpi"]["transport"]["single_copy"] = "other"
            if line["record"] == "halo" and line["variant"] == "baseline":
                line["iteration_ns"]["median"] /= 2
            out.write(json.dumps(line) + "\n")
    table = hetprobe.data.halo_table(hetprobe.load(merged))
    assert len(set(table["single_copy"])) == 2
    for _, rows in table.groupby("single_copy"):
        base = rows[rows["variant"] == "baseline"]["median_us"].iloc[0]
        assert rows["speedup_vs_baseline"].tolist() == pytest.approx((base / rows["median_us"]).tolist())


def test_launches_pool_each_setups_paired_speedup(tmp_path):
    from hetprobe import _core

    files = []
    for i in range(3):
        files.append(tmp_path / f"launch{i}.jsonl")
        run_on_host(
            "halo", files[-1], cube=40, variants="baseline", recv_wait="all", rounds=2, iterations=2, timeline="none"
        )
    launches = hetprobe.load(files)
    table = hetprobe.data.halo_launches(launches)
    assert sorted(table["setup"]) == sorted(
        ["baseline isend waitall pinned 128t", "baseline isend testany pinned 128t"]
    )
    # Each launch's number is its record's paired speed-up; the pool is the C++ one of those numbers.
    per_setup = {}
    for rec in launches.records:
        if rec.get("record") == "halo" and rec["rank"] == 0:
            per_setup.setdefault(rec["setup"], []).append(rec["speedup"]["median"])
    setups = list(table["setup"])
    pooled = _core.pool_launch_points([per_setup[s] for s in setups])
    for row, expected in zip(table.itertuples(), pooled):
        assert row.launches == 3 and row.speedup == pytest.approx(expected.median)
        assert (row.speedup_ci95_low, row.speedup_ci95_high) == pytest.approx(tuple(expected.ci95))
    # One file is one launch: the same file twice is refused by `show --pool`, as for interference.
    twice = subprocess.run(
        [hetprobe.binary(), "show", "--pool", str(files[0]), str(files[1]), str(files[0])],
        capture_output=True,
        text=True,
    )
    assert twice.returncode == 2 and "one file is one launch" in twice.stderr


def test_launches_are_judged_on_each_stages_median(tmp_path):
    # Three launches of the same setups; the judged (auto) setup's unpack at 0.65, 0.75 and 0.8 of
    # the read kernel (40 GB/s): under 0.7 in the first launch, its median 0.75 passes.
    launches = []
    for k, unpack_gbs in enumerate((26.0, 30.0, 32.0)):
        (tmp_path / str(k)).mkdir()
        halo, bw = rate_files(tmp_path / str(k), auto_gbs=(10.0, 8.0))
        launches.append(with_busy(halo, 45.0, unpack_gbs))
    alone = rates_script(launches[0], bw)
    assert alone.returncode == 1 and "unpack 0.650 (lowest message 0.200): UNDER" in alone.stdout
    done = rates_script(launches[0], bw, "--launch", launches[1], "--launch", launches[2])
    assert done.returncode == 0, done.stdout
    assert "pack 0.900 (0.900, 0.900, 0.900); unpack 0.750 (0.650, 0.750, 0.800): ok (minimum 0.7)" in done.stdout
    assert "1 setups judged (pinned, parts auto) over 3 launches, 0 under 0.7 by their medians" in done.stdout
    done = rates_script(launches[0], bw, "--launch", launches[1], "--min-ratio", "0.71")  # median 0.7: short
    assert done.returncode == 1 and "unpack 0.700 (0.650, 0.750): UNDER (minimum 0.71)" in done.stdout
    # A stage above its bound in any launch is a timing error, whatever the medians.
    records = jsonl_records(launches[2])
    records[1]["pack_busy"]["above_link"] = True
    write_jsonl(launches[2], records)
    done = rates_script(launches[0], bw, "--launch", launches[1], "--launch", launches[2])
    assert done.returncode == 1 and "TIMING ERROR in launch 3; ok (minimum 0.7)" in done.stdout
