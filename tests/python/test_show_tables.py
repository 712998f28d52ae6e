"""One owner for every table: for each committed results file, what `hetprobe show --format json`
prints equals the package's tables, which are views of the same C++ table code. Fails when either
side computes a column the other does not, or computes it differently."""

import json
import math
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from conftest import RUNS

import hetprobe
from hetprobe import data
from hetprobe.data.jsonl import results_files
from hetprobe.data.show_tables import show_tables
from hetprobe.report.texts import ci_text
from hetprobe.run.probes import binary

ROOT = Path(__file__).resolve().parents[2]
FILES = [p.relative_to(ROOT) for p in results_files(ROOT / "notebooks/data", recursive=True)]


def same(a, b) -> bool:
    """Cell equality as JSON means it: NaN and None are both "no value"."""
    missing = lambda v: v is None or (isinstance(v, float) and math.isnan(v))  # noqa: E731
    if missing(a) or missing(b):
        return missing(a) and missing(b)
    return a == b


def shown(path) -> dict:
    done = subprocess.run([binary(), "show", str(ROOT / path), "--format", "json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def assert_rows_equal(python: pd.DataFrame, cli_rows: list, columns: dict, where: str) -> None:
    """Each of `columns` ({python column: show's column}) holds the same cells, row for row."""
    assert len(python) == len(cli_rows), where
    for i, (row, cli) in enumerate(zip(python.to_dict("records"), cli_rows)):
        for mine, theirs in columns.items():
            assert same(row[mine], cli[theirs]), (
                f"{where} row {i}: {mine}={row[mine]!r}, show's {theirs}={cli[theirs]!r}"
            )


def test_the_files_are_there():
    assert len(FILES) >= 10 and any("halo" in str(f) for f in FILES)


@pytest.mark.parametrize("path", FILES, ids=str)
def test_show_json_equals_the_package_tables(path):
    cli = shown(path)
    results = hetprobe.load(ROOT / path)
    python = show_tables(results)
    assert sorted(python) == sorted(cli), path
    for name, rows in cli.items():
        table = python[name]
        assert list(table.columns) == ["file", *(rows[0] if rows else [])], (path, name)
        assert_rows_equal(table, rows, {c: c for c in table.columns if c != "file"}, f"{path} {name}")
    if "halo" in cli:  # data.halo_table is a view of show's halo table, under its own column names
        halo = data.halo_table(results)
        names = {c: c for c in cli["halo"][0]} | {
            "threads_per_block": "threads",
            "slowest_rank_median_us": "slowest_us",
            "speedup_vs_baseline": "vs_base",
            "speedup_vs_best_baseline": "vs_best",
            "model_lower_bound_us": "model_lb_us",
        }
        names = {mine: theirs for mine, theirs in names.items() if mine in halo.columns}
        assert_rows_equal(halo, cli["halo"], names, f"{path} halo_table")
    if cli.get("mechanisms"):  # the notify tables reshape the same medians show prints
        mechanisms = data.mechanism_table(results)
        lowest = min(r["rank"] for r in cli["mechanisms"])
        first = {}
        for r in cli["mechanisms"]:
            if r["rank"] == lowest:
                first.setdefault(r["mechanism"], r)
        rows = [first[m] for m in mechanisms.index]
        columns = {"median": "median_ns", "p10": "p10_ns", "p90": "p90_ns", "n": "n", "status": "status"}
        assert_rows_equal(mechanisms.reset_index(), rows, columns, f"{path} mechanism_table")
    if "interference" in cli:
        ratios = results.interference_ratios(pooled=False)
        columns = {
            "size_bytes": "size_bytes",
            "layout": "layout",
            "access": "access",
            "load_kind": "load_kind",
            "ratio_to_ssb": "ratio_to_ssb",
            "ratio_to_ssb_ci95_low": "ratio_to_ssb_ci95_low",
            "ratio_to_ssb_ci95_high": "ratio_to_ssb_ci95_high",
            "effect": "effect",
            "traffic_gbs": "traffic_gbs",
        }
        assert_rows_equal(ratios, cli["interference"], columns, f"{path} interference_ratios")


def test_a_side_that_computes_its_own_column_is_caught():
    """The check above can fail: a view that recomputes one speed-up its own way differs from show."""
    path = next(f for f in FILES if f.name == "paper-1.jsonl.gz")
    cli = shown(path)
    table = data.halo_table(hetprobe.load(ROOT / path))
    table["speedup_vs_baseline"] = table["speedup_vs_baseline"] * 1.001
    with pytest.raises(AssertionError, match="speedup_vs_baseline"):
        assert_rows_equal(table, cli["halo"], {"speedup_vs_baseline": "vs_base"}, "edited")


def test_the_cli_and_the_module_read_the_same_text():
    """Records made in memory (no raw line kept) reach the C++ tables as JSON, with the same result."""
    path = ROOT / next(f for f in FILES if f.name == "paper-1.jsonl.gz")
    results = hetprobe.load(path)
    from_lines = show_tables(results)["halo"]
    results._lines.clear()
    from_records = show_tables(results)["halo"]
    pd.testing.assert_frame_equal(from_lines, from_records)


def test_the_report_writes_an_interval_as_show_does():
    """A 95% interval's text is C++'s interval_text (base/number_text.hpp): show's ci95 column, one
    file and launches pooled, and the report's ci_text read it alike, row for row, "-" included."""
    launches = [RUNS / "h100-rounds" / f"interference-{k}.jsonl.gz" for k in (1, 2, 3)]
    seen = []
    for table, args in (("interference", [launches[0]]), ("interference_launches", ["--pool", *launches])):
        command = [binary(), "show", *map(str, args)]
        text = subprocess.run(command, capture_output=True, text=True, check=True).stdout.splitlines()
        rows = json.loads(subprocess.run([*command, "--format", "json"], capture_output=True, check=True).stdout)
        rows = rows[table]
        heading = next(i for i, line in enumerate(text) if line.lstrip().startswith("size "))
        end = text[heading].index(" ci95 ") + len(" ci95")
        shown_cells = [line[:end].split()[-1] for line in text[heading + 1 : heading + 1 + len(rows)]]
        bound = lambda v: math.nan if v is None else v  # noqa: E731
        mine = [ci_text(bound(r["ratio_to_ssb_ci95_low"]), bound(r["ratio_to_ssb_ci95_high"])) for r in rows]
        assert set(mine) != {"-"} and mine == shown_cells, table
        seen += mine
    assert "-" in seen  # a point without an interval (SSB's), written alike


def test_the_report_and_the_frames_name_a_load_as_show_does():
    """A load's label is C++'s load_label (bench/load/load_options.hpp): show's load column, Python's
    load_label of the same rows' fields and ratio_rows' brief names (show's without "x1") agree, row
    for row, a rate that is not the full one and several GPUs included."""
    from hetprobe.data.rates import load_label

    folder = RUNS / "h200x2-characterize-default"
    labels = set()
    for name in ("interference.jsonl.gz", "interference-rate.jsonl.gz"):
        command = [binary(), "show", str(folder / name)]
        text = subprocess.run(command, capture_output=True, text=True, check=True).stdout.splitlines()
        rows = json.loads(subprocess.run([*command, "--format", "json"], capture_output=True, check=True).stdout)
        rows = rows["interference"]
        heading = next(i for i, line in enumerate(text) if line.lstrip().startswith("size "))
        start, end = text[heading].index(" load ") + 1, text[heading].index(" median_us")
        shown = [line[start:end].strip() for line in text[heading + 1 : heading + 1 + len(rows)]]
        mine = [
            "-" if r["load_kind"] == "none" else load_label(r["load_kind"], r["load_gpus"], r["load_rate"])
            for r in rows
        ]
        assert mine == shown, name
        brief = set(data.ratio_rows(hetprobe.load(folder / name))["load"])
        assert brief == {load.replace(" x1", "") for load in shown if load != "-"}, name
        labels |= set(shown)
    assert any("@" in label for label in labels) and any(" x2" in label for label in labels), labels
