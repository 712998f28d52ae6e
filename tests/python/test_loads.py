"""The interference loads in Python: the load fields of hetprobe.load, the per-GPU frame, the host
memory record, the load plots and tables (checked against the records read independently), old
files read as the paper's writer, and a characterize run directory split into its parts."""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import RUNS, jsonl_records

import hetprobe
from hetprobe import data, plots
from hetprobe.data.rates import is_full
from hetprobe.errors import UsageError

MATRIX = RUNS / "h200x2-load" / "matrix.jsonl.gz"
RUN = RUNS / "h200x2-characterize"


@pytest.fixture(scope="module")
def matrix():
    return hetprobe.load(MATRIX)


def _points(path):
    return [r for r in jsonl_records(path) if r["record"] == "point"]


def _ssb(points):
    return {(p["size_bytes"], p["access"]): p["send_time_ns"]["median"] for p in points if p["layout"] == "SSB"}


def test_every_point_carries_its_load_and_its_traffic(matrix):
    rows = matrix.summary[matrix.summary["metric"] == "send_time_ns"].set_index("record_id")
    for i, rec in enumerate(matrix.records):
        if rec.get("record") != "point":
            continue
        row = rows.loc[i]
        rate = None if pd.isna(row["load_rate"]) else row["load_rate"]  # null for SSB
        assert (row["load_kind"], int(row["load_gpus"]), rate) == (rec["load_kind"], rec["load_gpus"], rec["load_rate"])
        assert row["traffic_during_send_gbs"] == pytest.approx(rec["load"]["traffic_during_send_gbs"])
        assert row["payload_writer"] == rec["payload_writer"]
    kinds = set(rows["load_kind"])
    assert kinds == {"none", "write", "read", "poll", "copy-d2h", "copy-h2d"}
    assert set(rows["load_gpus"]) == {0, 1, 2} and set(rows["load_rate"].dropna()) == {"0.25", "0.5", "1"}


def test_the_per_gpu_frame_has_a_row_per_load_gpu(matrix):
    gpus = matrix.load_gpus()
    loaded = [p for p in _points(MATRIX) if p["load_kind"] != "none"]
    assert len(gpus) == sum(p["load_gpus"] for p in loaded)
    assert set(gpus["ordinal"]) == {0, 1} and gpus["pci_bus_id"].notna().all()
    assert (gpus["rate_over_point_gbs"] > 0).all() and (gpus["unresolved_samples"] == 0).all()
    # The paced points hold their target within 10% over the point.
    paced = gpus.dropna(subset=["target_gbs"])
    assert len(paced) and ((paced["rate_over_point_gbs"] / paced["target_gbs"] - 1).abs() < 0.1).all()


def test_the_host_memory_record(matrix):
    rec = next(r for r in jsonl_records(MATRIX) if r["record"] == "host_memory")
    rows = matrix.summary[matrix.summary["record"] == "host_memory"].set_index("metric")
    assert rows.loc["triad_gbs", "max"] == pytest.approx(rec["best_triad_gbs"])
    assert rows.loc["copy_gbs", "n"] == len(rec["copy_gbs"]["samples"])


def test_load_table_and_worst_slowdown_match_the_records(matrix):
    points = _points(MATRIX)
    ssb = _ssb(points)
    table = data.load_table(matrix).set_index(["kind", "gpus"])
    for p in points:
        if p["load_kind"] == "none" or p["load_rate"] != "1" or p["size_bytes"] != 1024:
            continue
        row = table.loc[(p["load_kind"], p["load_gpus"])]
        assert row["1 KiB µs"] == pytest.approx(p["send_time_ns"]["median"] / 1e3)
        assert row["1 KiB ratio_to_ssb"] == pytest.approx(p["send_time_ns"]["median"] / ssb[(1024, p["access"])])
        assert row["1 KiB GB/s"] == pytest.approx(p["load"]["traffic_during_send_gbs"])
    worst = max(
        (p for p in points if p["load_kind"] != "none"),
        key=lambda p: p["send_time_ns"]["median"] / ssb[(p["size_bytes"], p["access"])],
    )
    w = data.worst_slowdown(matrix)
    assert (w["size_bytes"], w["load_kind"], w["load_gpus"], w["load_rate"]) == (
        worst["size_bytes"],
        worst["load_kind"],
        worst["load_gpus"],
        worst["load_rate"],
    )


def test_load_plots(matrix, tmp_path):
    fig = plots.slowdown_vs_traffic(matrix, path=tmp_path / "traffic.png")
    assert (tmp_path / "traffic.png").stat().st_size > 10_000
    assert [ax.get_title() for ax in fig.axes] == ["1 KiB", "64 KiB", "1 MiB", "16 MiB"]
    assert [ax.get_xlabel() for ax in fig.axes] == ["", "", *["GPU traffic during the send (GB/s)"] * 2]  # bottom row
    assert all(fig.axes[i].get_ylabel().startswith("ratio_to_ssb") for i in (0, 2))  # left column
    fig = plots.slowdown_vs_gpus(matrix, sizes=[1024], path=tmp_path / "gpus.png")
    lines = {line.get_label(): line for line in fig.axes[0].lines}
    assert set(lines) == {"write", "read", "poll", "copy-d2h", "copy-h2d"}
    assert list(lines["write"].get_xdata()) == [0, 1, 2] and lines["write"].get_ydata()[0] == 1.0
    with pytest.raises(UsageError, match="no load points at rate 0.3"):
        plots.slowdown_vs_gpus(matrix, rate="0.3")


def test_files_from_before_the_loads_read_as_the_papers_writer():
    old = hetprobe.load(RUNS / "h200-interference-sweep.jsonl.gz")
    s = old.summary[old.summary["metric"] == "send_time_ns"]
    assert set(zip(s["layout"] == "SSB", s["load_kind"], s["load_gpus"])) == {(True, "none", 0), (False, "write", 1)}
    assert (
        s.loc[s["layout"] != "SSB", "traffic_during_send_gbs"]
        == s.loc[s["layout"] != "SSB", "bandwidth_during_send_gbs"]
    ).all()
    assert old.load_gpus().empty


def test_a_characterize_run_splits_into_its_parts():
    run = hetprobe.load(RUN)
    parts = hetprobe.interference_parts(run)
    assert set(parts) == {"loads", "rates", "paper"}
    assert [h.endswith("interference-paper.jsonl") for h in parts["paper"].headers["file"]] == [True]
    paper = hetprobe.paper_view(run)
    names = {f.rsplit("/", 1)[-1] for f in paper.files}
    assert "interference-paper.jsonl" in names and "interference.jsonl" not in names and "notify.jsonl" in names
    assert plots.send_time(paper) is not None  # one run of the paper's points: no ambiguity
    table = hetprobe.headline_table(run).set_index("quantity")
    assert (
        table.loc["Worst MPI_Send slowdown under GPU traffic", "value"].split("×")[0]
        == f"{data.worst_slowdown(parts['loads'])['ratio_to_ssb']:.4g}"
    )


def test_rates_are_equal_by_value_not_by_their_spelling(tmp_path):
    # The same run with its rates spelt as percentages reads the same: the full rate is "100%", and
    # asking for rate "0.5" finds the "50%" points (C++'s parse, through hetprobe._core).
    source = RUN / "interference-rate.jsonl"
    spelt = tmp_path / "interference-rate.jsonl"
    text = source.read_text()
    spellings = {"0.25": "25%", "0.5": "50%", "0.75": "75%", "1": "100%"}
    for fraction, percent in spellings.items():
        text = text.replace(f'"load_rate":"{fraction}"', f'"load_rate":"{percent}"')
    text = text.replace('"load_rates":["0.25","0.5","0.75","1"]', '"load_rates":["25%","50%","75%","100%"]')
    spelt.write_text(text)
    as_written, as_percent = hetprobe.load(source), hetprobe.load(spelt)
    assert set(data.load_points(as_percent)["load_rate"]) == {"25%", "50%", "75%", "100%"}
    for rate in ("1", "0.5"):
        expected = data.load_table(as_written, rate=rate)
        pd.testing.assert_frame_equal(data.load_table(as_percent, rate=rate), expected)
        pd.testing.assert_frame_equal(data.load_table(as_percent, rate=f"{float(rate):.0%}"), expected)
    assert is_full("100%") and is_full("1.0") and not is_full("50%")
    with pytest.raises(UsageError, match="load-rate|rate"):
        data.load_table(as_percent, rate="fast")
