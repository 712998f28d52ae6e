"""The node model from Python (hetprobe.model) and the CLI (`hetprobe model`) on host-backend runs: one
owner (the C++ fit and prediction: the module's tables are the JSON document's numbers), and the bad
inputs the issue names, each a clear message and exit 2 with nothing written."""

from __future__ import annotations

import json
import re
import shutil
import statistics
import subprocess

import pandas as pd
import pytest
from conftest import RUNS, jsonl_records, run_on_host, write_jsonl

import hetprobe


@pytest.fixture(scope="module")
def node_run(tmp_path_factory):
    """A run directory as characterize leaves it (its interference series), and a halo run beside it."""
    run = tmp_path_factory.mktemp("node")
    run_on_host(
        "interference",
        run / "interference.jsonl",
        sizes="1KiB,64KiB,1MiB",
        layouts="SSB,PCB",
        load="write,read",
        rounds=6,
        reps=2,
    )
    run_on_host(
        "halo", run / "halo.jsonl", cube=40, variants="baseline,notify-stream", rounds=2, iterations=2, timeline="all"
    )
    return run


def sizes_with_traffic(run) -> list[int]:
    """The sizes whose write or read point (SSB's companions) saw the load move bytes during its sends."""
    return sorted(
        {
            r["size_bytes"]
            for r in jsonl_records(run / "interference.jsonl")
            if r.get("record") == "point"
            and r.get("layout") == "PCB"
            and r.get("load_kind") in ("write", "read")
            and ((r.get("load") or {}).get("traffic_during_send_gbs") or 0) > 0
            and r.get("ratio_to_ssb_rounds")
        }
    )


def cli(*args):
    return subprocess.run([hetprobe.binary(), "model", *map(str, args)], capture_output=True, text=True)


def test_the_module_reads_the_documents_numbers(node_run):
    m = hetprobe.model(node_run, halo=node_run / "halo.jsonl")
    # A Results read from the run is the run (the path C++ fits from is its directory).
    assert hetprobe.model(hetprobe.load(node_run)).document["fit"] == m.document["fit"]
    doc = json.loads(cli(node_run, "--halo", node_run / "halo.jsonl", "--format", "json").stdout)
    assert m.document["sources"]["node"] == doc["sources"]["node"]
    fit = m.fit.set_index("parameter")
    # Fitted from rounds: a median with its interval (6 rounds) per parameter; the CLI's fit is the same fit.
    assert fit.loc["beta_s_per_byte", "median"] == pytest.approx(doc["fit"]["beta_s_per_byte"]["median"])
    assert fit.loc["alpha_s", "rounds"] == 6 and fit.loc["alpha_s", "ci95_low"] <= fit.loc["alpha_s", "median"]
    # A slope per size where the load moved bytes during the send (a 1 KiB send on a busy host may see none).
    assert sorted(m.fit.loc[m.fit["parameter"] == "gamma_per_gbs", "bytes"]) == sizes_with_traffic(node_run)
    assert sizes_with_traffic(node_run), "the 1 MiB sends at least overlap the load"
    # The segments that predict a message: one row per segment and parameter, the document's numbers.
    segments = m.fit[m.fit["parameter"] == "segment_beta_s_per_byte"]
    assert list(zip(segments["bytes"], segments["to_bytes"])) == [
        (s["from_bytes"], s["to_bytes"]) for s in doc["fit"]["segments"]
    ]
    assert list(segments["median"]) == pytest.approx([s["beta_s_per_byte"]["median"] for s in doc["fit"]["segments"]])
    assert doc["fit"]["segments"], "64 KiB and 1 MiB: one segment at least"
    # One prediction per setup, each iteration measured and predicted (2 rounds x 2 iterations).
    assert sorted(m.predictions["setup"]) == [
        "baseline isend waitall pinned 128t",
        "notify-stream isend channel pinned 128t",
    ]
    for p in m.document["predictions"]:
        assert len(p["measured_comm_ns"]) == len(p["predicted_comm_ns"]) == p["iterations"] == 4
        errors = [b / a - 1 for a, b in zip(p["measured_comm_ns"], p["predicted_comm_ns"])]
        assert p["error_median"] == pytest.approx(statistics.median(errors))
    table = cli(node_run, "--halo", node_run / "halo.jsonl")
    assert table.returncode == 0 and "beta (1/bandwidth)" in table.stdout and "error_pct" in table.stdout


def test_a_halo_run_of_another_node_is_refused(node_run, tmp_path):
    records = jsonl_records(node_run / "halo.jsonl")
    records[0]["host"] = "another-node"
    other = write_jsonl(tmp_path / "other.jsonl", records)
    done = cli(node_run, "--halo", other)
    assert done.returncode == 2 and "a node's model predicts that node's runs only" in done.stderr
    assert done.stdout == ""
    with pytest.raises(hetprobe.UsageError, match="another-node"):
        hetprobe.model(node_run, halo=other)


def test_a_run_without_the_series_is_refused(node_run, tmp_path):
    empty = tmp_path / "no-interference"
    empty.mkdir()
    done = cli(empty)
    assert done.returncode == 2 and "holds no interference results" in done.stderr
    # One size of the idle send: no line through it.
    records = [
        r
        for r in jsonl_records(node_run / "interference.jsonl")
        if r.get("record") != "point" or r["size_bytes"] == 1024
    ]
    one_size = tmp_path / "one-size"
    one_size.mkdir()
    write_jsonl(one_size / "interference.jsonl", records)
    done = cli(one_size)
    assert done.returncode == 2 and "2 sizes or more" in done.stderr


def test_a_layout_it_cannot_place_is_refused(node_run, tmp_path):
    records = jsonl_records(node_run / "halo.jsonl")
    for r in records[1:]:
        if r.get("record") == "halo":
            r["timeline"]["kept"] = "median"
    median = write_jsonl(tmp_path / "median.jsonl", records)
    done = cli(node_run, "--halo", median)
    assert done.returncode == 2 and "a halo layout the model cannot place" in done.stderr
    shutil.copy(node_run / "interference.jsonl", tmp_path / "i.jsonl")
    done = cli(tmp_path / "i.jsonl", "--halo", node_run / "interference.jsonl")  # not a halo file
    assert done.returncode == 2 and "is not a halo results file" in done.stderr


def test_times_that_fall_with_size_are_marked_implausible(node_run, tmp_path):
    """SSB times made to fall with size: beta is below 0, and the CLI, the module and the report's
    table say it is implausible beside the number, with why (C++'s mark, read, never recomputed)."""
    records = jsonl_records(node_run / "interference.jsonl")
    for r in records:
        if r.get("record") == "point" and r.get("layout") == "SSB":
            rounds = r["send_time_ns"]["round_medians"]
            r["send_time_ns"]["round_medians"] = [1e6 / (1 + r["size_bytes"] / 1024) for _ in rounds]
    falling = tmp_path / "falling"
    falling.mkdir()
    write_jsonl(falling / "interference.jsonl", records)
    done = cli(falling)
    assert done.returncode == 0, done.stderr
    assert "# !1 beta (1/bandwidth): implausible, a negative inverse bandwidth: the times fall with size" in done.stdout
    fit = hetprobe.model(falling).fit.set_index("parameter")
    assert fit.loc["beta_s_per_byte", "median"] < 0 and "fall with size" in fit.loc["beta_s_per_byte", "implausible"]
    assert pd.isna(fit.loc["alpha_s", "implausible"])  # 1 ms at 1 KiB: a latency above 0
    from hetprobe.report.model import fit_table

    shown = fit_table(hetprobe.model(falling).fit).set_index("parameter")
    assert shown.loc["beta (1 / bandwidth)", "median"].endswith(
        "(implausible: a negative inverse bandwidth: the times fall with size)"
    )
    assert "implausible" not in shown.loc["alpha (latency)", "median"]


def _first(records, loaded: bool) -> int:
    """The index of the first SSB point with rounds, or the first write point the fit takes."""
    return next(
        i
        for i, r in enumerate(records)
        if r.get("record") == "point"
        and (
            (r.get("load_kind") == "write" and r["layout"] != "PSB" and r.get("ratio_to_ssb_rounds"))
            if loaded
            else (r["layout"] == "SSB" and (r.get("send_time_ns") or {}).get("round_medians"))
        )
    )


def _set_round(records, value, loaded=False):
    r = records[_first(records, loaded)]
    (r["ratio_to_ssb_rounds"] if loaded else r["send_time_ns"]["round_medians"])[0] = value


@pytest.mark.parametrize(
    "damage, named",
    [
        (lambda rs: _set_round(rs, "fast"), "field 'send_time_ns.round_medians[0]': expected a send time in ns"),
        (lambda rs: _set_round(rs, 1e308), "got 1e+308: the node model fits measurements only"),
        (lambda rs: _set_round(rs, 1e-300), "got 1e-300: the node model fits measurements only"),
        (lambda rs: _set_round(rs, "x", loaded=True), "field 'ratio_to_ssb_rounds[0]': expected a ratio to SSB"),
        (lambda rs: rs[_first(rs, False)].update(size_bytes=0), "field 'size_bytes': expected a message size of 1"),
        (lambda rs: rs.insert(_first(rs, False) + 1, json.loads(json.dumps(rs[_first(rs, False)]))), "again: the"),
        (
            lambda rs: rs[_first(rs, True)]["load"].update(traffic_during_send_gbs=-3.0),
            "field 'load.traffic_during_send_gbs': expected a traffic of 0 GB/s or more",
        ),
    ],
)
def test_the_model_refuses_what_it_cannot_fit_naming_the_field(tmp_path, damage, named):
    """Issue 54: a string read as missing, 1e308 giving beta -1e61, a size of 0, a point twice, a negative
    traffic: each once fitted without a word. Refused by `hetprobe model` (exit 2) and hetprobe.model,
    naming the file, line and field; nothing written."""
    records = jsonl_records(RUNS / "h100-characterize-run-as-data" / "interference.jsonl.gz")
    damage(records)
    path = write_jsonl(tmp_path / "interference.jsonl", records)
    done = subprocess.run([hetprobe.binary(), "model", str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and named in done.stderr and str(path) in done.stderr, done.stderr
    with pytest.raises(hetprobe.errors.UsageError, match=re.escape(named)):
        hetprobe.model(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["interference.jsonl"]


def test_the_model_refuses_a_cut_file(tmp_path):
    text = "".join(
        json.dumps(r) + "\n" for r in jsonl_records(RUNS / "h100-characterize-run-as-data" / "interference.jsonl.gz")
    )
    path = tmp_path / "interference.jsonl"
    path.write_text(text[: len(text) * 2 // 3])
    with pytest.raises(hetprobe.errors.UsageError, match="its last line is cut"):
        hetprobe.model(path)
