"""Aggregates are records (issue 52 item 1): `show --pool RUN_DIR --records FILE` writes a run's pooled
interference points as a results file, which `show`, `merge` and `hetprobe.load` read as any results
file, giving the numbers the run directory gives, value for value."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest
from conftest import RUNS

import hetprobe
from hetprobe.errors import UsageError

RUN_DIR = RUNS / "h100-characterize-run-as-data"  # 3 warm launches, a cold and a rate step
POINT = ["step", "size_bytes", "layout", "access", "load_kind", "load_gpus", "load_rate", "gap"]


def show(*args):
    return subprocess.run([sys.executable, "-m", "hetprobe", "show", *map(str, args)], capture_output=True, text=True)


@pytest.fixture(scope="module")
def pooled(tmp_path_factory):
    path = tmp_path_factory.mktemp("pooled") / "pooled.jsonl"
    done = show("--pool", RUN_DIR, "--records", path)
    assert done.returncode == 0, done.stderr
    assert f"wrote {path}" in done.stderr
    return path


def test_the_pooled_file_shows_the_run_directorys_pooled_rows(pooled):
    by_step = json.loads(show("--pool", RUN_DIR, "--format", "json").stdout)
    expected = [
        dict(row, step=name.split()[0]) for name, tables in by_step.items() for row in tables["interference_launches"]
    ]
    done = show(pooled, "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["interference_launches"] == expected
    assert len(expected) == 46


def test_load_reads_the_aggregates_as_the_run_directory_gives_them(pooled):
    direct = hetprobe.load(RUN_DIR).interference_ratios().sort_values(POINT, ignore_index=True)
    read = hetprobe.load(pooled).interference_ratios().sort_values(POINT, ignore_index=True)
    columns = [c for c in direct.columns if c not in ("series", "record_ids")]
    pd.testing.assert_frame_equal(read[columns], direct[columns])
    header = hetprobe.load(pooled).records[0]
    assert [os.path.basename(f) for f in header["pooled_launches"]] == [
        "interference.jsonl.gz",
        "interference.launch2.jsonl.gz",
        "interference.launch3.jsonl.gz",
    ]


def test_what_a_pooled_file_lacks_is_refused_naming_the_files(pooled):
    with pytest.raises(UsageError, match="holds pooled points .* not their launches: load the launches"):
        hetprobe.load(pooled).interference_ratios(pooled=False)
    with pytest.raises(UsageError, match=f"holds launches and {pooled} pooled points"):
        hetprobe.load([RUN_DIR, pooled]).interference_ratios()


def test_merge_keeps_pooled_files_readable(pooled, tmp_path):
    one = tmp_path / "one-launch.jsonl"  # a second pooled file: one launch, pooled alone
    assert show("--pool", RUN_DIR / "interference.launch2.jsonl.gz", "--records", one).returncode == 0
    merged = tmp_path / "merged.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "hetprobe", "merge", "-o", str(merged), str(pooled), str(one)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads(show(merged, "--format", "json").stdout)["interference_launches"]
    assert len(rows) == 46 + 20 and {r["launches"] for r in rows[46:]} == {1}


def test_records_are_refused_where_they_would_replace_or_go_astray(pooled, tmp_path):
    again = show("--pool", RUN_DIR, "--records", pooled)
    assert again.returncode == 2 and "exists already: pass --force" in again.stderr
    assert show("--pool", RUN_DIR, "--records", pooled, "--force").returncode == 0
    link = tmp_path / "link.jsonl"
    link.symlink_to(pooled)
    through = show("--pool", RUN_DIR, "--records", link, "--force")
    assert through.returncode == 2 and "is not a regular file: it is never replaced" in through.stderr
    alone = show(RUN_DIR / "interference.jsonl.gz", "--records", tmp_path / "x.jsonl")
    assert alone.returncode == 2 and "with --pool" in alone.stderr
    assert not (tmp_path / "x.jsonl").exists()
