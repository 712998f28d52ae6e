"""`hetprobe show --format csv`: a CSV holds one table, so several tables go to one file each (--out DIR)
or --table picks one; a stream of several tables is never passed off as one CSV. Each file written
reads with pandas.read_csv, with the rows and columns of the same table in show's JSON."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
from conftest import RUNS

RUN_DIR = RUNS / "h200x2-characterize"


def show(*args, **kw):
    return subprocess.run(
        [sys.executable, "-m", "hetprobe", "show", *map(str, args)], capture_output=True, text=True, **kw
    )


def json_tables(path) -> dict:
    done = show(path, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_several_tables_without_a_choice_are_refused_with_their_names():
    done = show(RUNS / "h200-notify.jsonl.gz", "--format", "csv")
    assert done.returncode == 2 and done.stdout == ""
    message = done.stderr
    for name in json_tables(RUNS / "h200-notify.jsonl.gz"):
        assert name in message
    assert "--table NAME" in message and "--out DIR" in message
    done = show(RUN_DIR, "--format", "csv")
    assert done.returncode == 2 and done.stdout == ""
    assert "notify.jsonl: overhead, roundtrip" in done.stderr and "clock.jsonl: clock_batches, clock_fit" in done.stderr


def test_one_table_goes_to_standard_output(tmp_path):
    done = show(RUNS / "h200-notify.jsonl.gz", "--format", "csv", "--table", "roundtrip")
    assert done.returncode == 0, done.stderr
    (tmp_path / "roundtrip.csv").write_text(done.stdout)
    frame = pd.read_csv(tmp_path / "roundtrip.csv")
    rows = json_tables(RUNS / "h200-notify.jsonl.gz")["roundtrip"]
    assert list(frame.columns) == list(rows[0]) and len(frame) == len(rows)
    # A file with one table needs no option.
    done = show(RUNS / "h200-bandwidth.jsonl", "--format", "csv")
    assert done.returncode == 0, done.stderr
    (tmp_path / "bandwidth.csv").write_text(done.stdout)
    rows = json_tables(RUNS / "h200-bandwidth.jsonl")["bandwidth"]
    assert len(pd.read_csv(tmp_path / "bandwidth.csv")) == len(rows)


def test_out_writes_each_table_of_a_file_as_its_own_csv(tmp_path):
    out = tmp_path / "tables"
    done = show(RUNS / "h200-notify.jsonl.gz", "--out", out)  # --out implies CSV
    assert done.returncode == 0, done.stderr
    expected = json_tables(RUNS / "h200-notify.jsonl.gz")
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{name}.csv" for name in expected)
    for name, rows in expected.items():
        frame = pd.read_csv(out / f"{name}.csv")
        assert list(frame.columns) == list(rows[0]) and len(frame) == len(rows), name
        assert f"wrote {out / (name + '.csv')}" in done.stderr


def test_out_writes_every_table_of_a_run_directory(tmp_path):
    out = tmp_path / "tables"
    done = show(RUN_DIR, "--format", "csv", "--out", out)
    assert done.returncode == 0, done.stderr
    written = sorted(p.name for p in out.iterdir())
    expected = {
        f"{path.stem}.{name}.csv": rows
        for path in sorted(RUN_DIR.glob("*.jsonl"))
        for name, rows in json_tables(path).items()
    }
    assert written == sorted(expected)
    for name, rows in expected.items():
        frame = pd.read_csv(out / name)
        assert list(frame.columns) == list(rows[0]) and len(frame) == len(rows), name


def test_a_table_that_several_files_have_needs_out_or_one_file(tmp_path):
    having = [p.name for p in sorted(RUN_DIR.glob("*.jsonl")) if "interference" in json_tables(p)]
    assert len(having) > 1  # the committed run has several interference steps
    done = show(RUN_DIR, "--format", "csv", "--table", "interference")
    assert done.returncode == 2 and done.stdout == ""
    assert all(name in done.stderr for name in having) and "--out DIR" in done.stderr
    done = show(RUN_DIR, "--table", "interference", "--out", tmp_path / "t")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "t").iterdir()) == sorted(
        f"{name.removesuffix('.jsonl')}.interference.csv" for name in having
    )


def test_out_refuses_other_formats_and_non_directories_and_writes_nothing(tmp_path):
    done = show(RUNS / "h200-notify.jsonl.gz", "--format", "json", "--out", tmp_path / "t")
    assert done.returncode == 2 and "--out" in done.stderr and "--format json" in done.stderr
    assert not (tmp_path / "t").exists()
    file = tmp_path / "file.txt"
    file.write_text("keep me")
    done = show(RUNS / "h200-notify.jsonl.gz", "--out", file)
    assert done.returncode == 2 and "not a directory" in done.stderr and file.read_text() == "keep me"
    done = show(RUNS / "h200-notify.jsonl.gz", "--out", tmp_path / "missing" / "t")
    assert done.returncode == 2 and "cannot make this directory" in done.stderr
    assert not (tmp_path / "missing").exists()
    # Two results files of the same name would write the same CSV files: refused before any is written.
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "notify.jsonl.gz").write_bytes((RUNS / "h200-notify.jsonl.gz").read_bytes())
    done = show(tmp_path / "a" / "notify.jsonl.gz", tmp_path / "b" / "notify.jsonl.gz", "--out", tmp_path / "both")
    assert done.returncode == 2 and "would both write notify.overhead.csv" in done.stderr
    assert not (tmp_path / "both").exists()


def test_out_replaces_an_existing_csv_only_with_force(tmp_path):
    """No overwrite without asking (issue 36): a CSV already in --out DIR is refused, exit 2, every file kept as it
    was; --force replaces a regular file, never a FIFO or a directory of that name."""
    out = tmp_path / "t"
    assert show(RUNS / "h200-bandwidth.jsonl", "--out", out).returncode == 0
    (out / "bandwidth.csv").write_text("keep me")
    done = show(RUNS / "h200-bandwidth.jsonl", "--out", out)
    assert done.returncode == 2 and "bandwidth.csv exist(s) already: pass --force" in done.stderr
    assert (out / "bandwidth.csv").read_text() == "keep me"
    done = show(RUNS / "h200-bandwidth.jsonl", "--out", out, "--force")
    assert done.returncode == 0 and (out / "bandwidth.csv").read_text().startswith("traffic,")
    (out / "bandwidth.csv").unlink()
    (out / "bandwidth.csv").mkdir()
    done = show(RUNS / "h200-bandwidth.jsonl", "--out", out, "--force")
    assert done.returncode == 2 and "is not a regular file: it is never replaced" in done.stderr
    assert (out / "bandwidth.csv").is_dir()


def test_an_empty_format_is_refused_not_taken_for_the_default():
    """issue 36: `--format ''` printed the default table; a value given is checked, even an empty one."""
    done = show(RUNS / "h200-bandwidth.jsonl", "--format", "")
    assert done.returncode == 2 and "--format '': an empty value" in done.stderr and done.stdout == ""
