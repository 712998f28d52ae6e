"""A run directory read as one object, as a Python user reads it: docs/python.md's "Read a run" block runs
as written on a fresh characterize run, load_table gives the report's numbers value by value
(tests/gpu/read_a_run.py, which a GPU node runs on its own run), and each table and plot reads the step
it names (the warm loads unless told), every launch pooled."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib
import numpy as np
import pytest

import hetprobe
from hetprobe import _core, data, plots
from hetprobe.errors import UsageError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "gpu"))
import read_a_run  # noqa: E402

matplotlib.use("Agg")


def test_the_docs_examples_run_as_written_on_a_fresh_run(host_run, tmp_path):
    directory, _ = host_run
    scope = read_a_run.run_docs_block(directory, tmp_path)
    assert (tmp_path / "send.png").stat().st_size > 0
    assert set(scope["hetprobe"].data.load_table(directory)["step"]) == {"interference"}


def test_load_table_gives_the_reports_numbers(host_run):
    directory, _ = host_run
    lines = read_a_run.compare_load_table(directory)
    assert len(lines) >= 8 and not [ln for ln in lines if ln.startswith("!")], "\n".join(lines)


def test_a_fresh_runs_pooled_records_read_back_as_its_directory(host_run, tmp_path):
    directory, _ = host_run
    rows, differ = read_a_run.compare_pooled_records(directory, tmp_path)
    assert rows >= 8 and differ == []


def test_a_difference_from_the_report_is_marked(host_run, tmp_path):
    directory, _ = host_run
    copy = tmp_path / "run"
    copy.mkdir()
    for f in directory.iterdir():
        if f.is_file():
            (copy / f.name).write_bytes(f.read_bytes())
    report = (copy / "report.md").read_text(encoding="utf-8")
    row = next(ln for ln in report.splitlines() if ln.startswith("| write | 1 | 1 KiB |"))
    cells = row.split("|")
    cells[6] = " 9.999 "  # ratio_to_ssb
    (copy / "report.md").write_text(report.replace(row, "|".join(cells)), encoding="utf-8")
    assert [ln for ln in read_a_run.compare_load_table(copy) if ln.startswith("! interference write x1 1 KiB")]


def test_each_table_and_plot_reads_the_step_it_names(host_run):
    directory, _ = host_run
    run = hetprobe.load(directory)
    pooled = run.interference_ratios()
    assert {"interference", "interference-cold", "interference-paper"} <= set(pooled["step"])
    assert (pooled.loc[pooled["step"] == "interference", "launches"] == 3).all()
    cold = data.load_table(run, step="interference-cold")
    assert set(cold["step"]) == {"interference-cold"}
    warm = data.load_table(run)
    cell = ("write", 1), "1 KiB µs"
    assert cold.set_index(["kind", "gpus"]).loc[cell] != warm.set_index(["kind", "gpus"]).loc[cell]
    with pytest.raises(UsageError, match="their steps: interference"):
        data.load_table(run, step="interference-warm")
    assert "step interference-paper, 3 launches" in plots.send_time(run)._suptitle.get_text()
    assert "step interference, 3 launches" in plots.slowdown_vs_gpus(directory)._suptitle.get_text()
    title = plots.slowdown_vs_traffic(run)._suptitle.get_text()
    assert "step interference, 3 launches" in title and "interference-cold" not in title


def test_characterize_json_has_the_headline_as_numbers(host_run):
    # What a site's dashboard reads without parsing text: the point the summary names, its pooled
    # ratio and interval, as C++ chose them over the run's aggregates.
    directory, _ = host_run
    warm = json.loads((directory / "characterize.json").read_text())["headline"]["warm"]
    assert warm["unit"] == "ratio to SSB" and warm["verdict"] in ("claimed", "within_noise", "no_interval")
    pooled = hetprobe.load(directory).interference_ratios()
    point = warm["point"]
    same = np.logical_and.reduce([pooled[k] == v for k, v in point.items()])
    assert same.sum() == 1, point  # the point is named whole: step, size, layout, access and load
    row = pooled[same].iloc[0]
    assert (warm["value"], warm["lower"], warm["upper"]) == (
        row["ratio_to_ssb"],
        row["ratio_to_ssb_ci95_low"],
        row["ratio_to_ssb_ci95_high"],
    )
    assert (
        warm["launches"] == row["launches"] == 3
        and warm["interval_over"] == row["ratio_to_ssb_ci95_over"] == "launches"
    )
    summary = (directory / "summary.txt").read_text()
    assert f"{_core.number_text(warm['value'])}× SSB" in summary


def test_the_headline_table_takes_a_run_directory(host_run):
    directory, _ = host_run
    by_path = hetprobe.headline_table(directory)
    assert by_path.equals(hetprobe.headline_table(hetprobe.load(directory)))
    assert "MPI_Send slowdown under GPU traffic" in set(by_path["quantity"])
