"""gzip-compressed results files (NAME.jsonl.gz, as notebooks/data keeps its large ones): the Python
reader takes them as the C++ one does (bench/core/gzip_text.cpp), and so does everything that finds
results files in a directory: load, show, report, check, merge."""

from __future__ import annotations

import gzip
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from conftest import RUNS, plain_bytes

import hetprobe
from hetprobe.data import jsonl
from hetprobe.data.load import TruncatedResultsWarning
from hetprobe.errors import ResultsFileError
from hetprobe.run.probes import binary

NOTIFY = RUNS / "h200-notify.jsonl.gz"


def test_a_compressed_file_reads_as_its_text(tmp_path):
    plain = tmp_path / "n.jsonl"
    plain.write_bytes(plain_bytes(NOTIFY))
    assert jsonl.records(NOTIFY) == jsonl.records(plain)
    a, b = hetprobe.load(NOTIFY), hetprobe.load(plain)
    assert a.summary.drop(columns="file").equals(b.summary.drop(columns="file"))
    # By its bytes, not its name.
    odd = tmp_path / "odd.jsonl"
    odd.write_bytes(NOTIFY.read_bytes())
    assert jsonl.records(odd) == jsonl.records(plain)


def test_members_one_after_another_read_in_order(tmp_path):
    text = plain_bytes(NOTIFY)
    cut = text.index(b"\n", len(text) // 2) + 1
    both = tmp_path / "both.jsonl.gz"
    both.write_bytes(gzip.compress(text[:cut], mtime=0) + gzip.compress(text[cut:], mtime=0))
    assert jsonl.records(both) == jsonl.records(NOTIFY)


def test_a_stream_cut_short_reads_up_to_the_cut_in_both_languages(tmp_path):
    packed = NOTIFY.read_bytes()
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(packed[: len(packed) // 2])
    parsed, truncated = jsonl.read_jsonl(cut)
    assert truncated and 0 < len(parsed) < len(jsonl.records(NOTIFY))
    with pytest.warns(TruncatedResultsWarning):
        assert len(hetprobe.load(cut).records) == len(parsed)
    shown = subprocess.run([binary(), "show", str(cut), "--format", "json"], capture_output=True, text=True)
    assert shown.returncode == 0 and "ignored an incomplete last line" in shown.stderr


def test_a_corrupt_stream_is_a_bad_file_named_in_both_languages(tmp_path):
    bad = tmp_path / "bad.jsonl.gz"
    packed = bytearray(NOTIFY.read_bytes())
    packed[3] = 0xFF  # reserved flag bits: not gzip any more
    bad.write_bytes(bytes(packed))
    with pytest.raises(ResultsFileError, match=f"{bad}: not a valid gzip file"):
        jsonl.records(bad)
    shown = subprocess.run([binary(), "show", str(bad)], capture_output=True, text=True)
    assert shown.returncode == 2 and f"{bad}: not a valid gzip file" in shown.stderr


def test_names_of_results_files(tmp_path):
    assert jsonl.is_results_file("a/notify.jsonl") and jsonl.is_results_file("notify.jsonl.gz")
    assert not jsonl.is_results_file("notify.txt") and not jsonl.is_results_file(".jsonl")
    assert jsonl.results_stem("d/interference.launch2.jsonl.gz") == "interference.launch2"
    assert jsonl.results_stem("run.txt") == "run"
    (tmp_path / "clock.jsonl.gz").write_bytes(b"")
    (tmp_path / "notify.jsonl").write_bytes(b"")
    assert jsonl.results_file(tmp_path, "clock").name == "clock.jsonl.gz"
    assert jsonl.results_file(tmp_path, "notify").name == "notify.jsonl"
    assert jsonl.results_file(tmp_path, "bandwidth").name == "bandwidth.jsonl"  # neither: the name it would have
    assert [p.name for p in jsonl.results_files(tmp_path)] == ["clock.jsonl.gz", "notify.jsonl"]


def test_a_run_directory_of_compressed_files_reads_as_written(tmp_path):
    """The committed two-H200 run keeps its large files compressed: load, show and the node report read it
    whole, each step under its own name."""
    run = RUNS / "h200x2-characterize-default"
    assert {p.name for p in run.glob("*.jsonl.gz")} >= {"notify.jsonl.gz", "interference.launch2.jsonl.gz"}
    with warnings.catch_warnings():
        warnings.simplefilter("error", TruncatedResultsWarning)
        results = hetprobe.load(run)
    pooled = results.interference_ratios()
    assert "interference" in set(pooled["step"]) and (pooled[pooled["step"] == "interference"]["launches"] == 3).all()
    shown = subprocess.run([binary(), "show", str(run)], capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    assert f"==> {run}/notify.jsonl.gz <==" in shown.stdout


@pytest.mark.parametrize(
    "name, text, said",
    [
        ("newlines.jsonl.gz", b"\n" * (jsonl.MAX_LINES + 1), "newlines.jsonl.gz: more than 10000000 lines, the most"),
        ("long.jsonl.gz", b" " * (jsonl.MAX_RECORD_BYTES + 1) + b"\n", "long.jsonl.gz:1: a line longer than 64 MiB"),
    ],
)
def test_both_readers_refuse_a_file_past_their_bounds_alike(tmp_path, name, text, said):
    """Bounded readers (issue 36): a small gzip of newlines or of one endless line is refused by the C++ reader
    (`hetprobe show`, exit 2) and the Python one with the same words, before it exhausts memory."""
    path = tmp_path / name
    path.write_bytes(gzip.compress(text, compresslevel=1))
    with pytest.raises(ResultsFileError, match=re.escape(said)):
        jsonl.read_jsonl(path)
    shown = subprocess.run([sys.executable, "-m", "hetprobe", "show", str(path)], capture_output=True, text=True)
    assert shown.returncode == 2 and said in shown.stderr, shown.stderr


def test_a_gzip_bomb_stops_at_the_bound_and_a_fifo_or_device_is_refused(tmp_path):
    packed = gzip.compress(b"x" * 4096)
    assert jsonl.gunzip(packed, "fits", max_bytes=4096) == b"x" * 4096
    with pytest.raises(ResultsFileError, match=r"bomb: decompressed, its text passes 0 MiB"):
        jsonl.gunzip(packed, "bomb", max_bytes=4095)
    os.mkfifo(tmp_path / "fifo.jsonl")
    for path, kind in ((tmp_path / "fifo.jsonl", "a FIFO"), (Path("/dev/zero"), "a character device")):
        with pytest.raises(ResultsFileError, match=f"is {kind}"):
            jsonl.read_jsonl(path)
