"""hetprobe.merge: combining results files into one, and its CLI."""

from __future__ import annotations

import gzip
import warnings

import pandas as pd
import pytest
from conftest import RUNS, plain_bytes

from hetprobe.data.load import TruncatedResultsWarning, load
from hetprobe.data.merge import main, merge
from hetprobe.errors import UsageError

NOTIFY, SWEEP = RUNS / "h200-notify.jsonl.gz", RUNS / "h200-interference-sweep.jsonl.gz"


def _public(records):
    return [{k: v for k, v in r.items() if not k.startswith("_")} for r in records]


def test_two_files_into_one(tmp_path):
    out = tmp_path / "merged.jsonl"
    merged = merge([NOTIFY, SWEEP], out)
    a, b = load(NOTIFY), load(SWEEP)
    assert merged.files == [str(out)]
    assert len(merged.summary) == len(a.summary) + len(b.summary)
    assert len(merged.samples) == len(a.samples) + len(b.samples)
    assert merged.headers["resumed"].tolist() == [False, False, True]
    assert _public(merged.records) == _public(a.records) + _public(b.records)
    # lines are copied as read: the merged file is the two inputs, byte for byte
    assert out.read_bytes() == plain_bytes(NOTIFY) + plain_bytes(SWEEP)  # merged as text
    assert b'"_file"' not in out.read_bytes()


def test_same_file_twice_is_written_once(tmp_path):
    out = tmp_path / "merged.jsonl"
    merged = merge([SWEEP, RUNS / "h200-clock.jsonl", SWEEP], out)
    assert len(merged.headers) == 3  # the sweep's two segments once, the clock's once
    assert len(merged.summary) == len(load(SWEEP).summary) + len(load(RUNS / "h200-clock.jsonl").summary)
    in_memory = merge([SWEEP, SWEEP])  # without out: everything that was read
    assert len(in_memory.headers) == 4


def test_directory_input_and_truncated_tail_dropped(tmp_path):
    src = tmp_path / "node"
    src.mkdir()
    (src / "clock.jsonl").write_bytes((RUNS / "h200-clock.jsonl").read_bytes()[:-100])
    (src / "bandwidth.jsonl").write_bytes((RUNS / "h200-bandwidth.jsonl").read_bytes())
    out = tmp_path / "merged.jsonl"
    with pytest.warns(TruncatedResultsWarning):
        merge([src], out)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the merged file has no incomplete line
        merged = load(out)
    assert merged.headers["probe"].tolist() == ["bandwidth", "clock"]
    assert len(merged.records) == 4 + 8  # bandwidth complete; clock without its cut clock_fit
    assert out.read_bytes().endswith(b"\n")


def test_refuses_to_overwrite(tmp_path):
    out = tmp_path / "merged.jsonl"
    out.write_text("keep me\n")
    with pytest.raises(UsageError, match="overwrite"):
        merge([NOTIFY], out)
    assert out.read_text() == "keep me\n"
    merged = merge([NOTIFY], out, overwrite=True)
    assert len(merged.records) == len(load(NOTIFY).records)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert len(merge([RUNS / "h200-bandwidth.jsonl"], empty).records) == 4  # an empty OUT may be replaced


def test_refuses_to_write_over_an_input(tmp_path):
    inp = tmp_path / "a.jsonl"
    inp.write_bytes((RUNS / "h200-bandwidth.jsonl").read_bytes())
    with pytest.raises(UsageError, match="one of the inputs"):
        merge([inp, NOTIFY], inp, overwrite=True)
    with pytest.raises(UsageError, match="one of the inputs"):
        merge([tmp_path], inp, overwrite=True)  # found through its directory
    assert inp.read_bytes() == (RUNS / "h200-bandwidth.jsonl").read_bytes()


def test_refuses_benchmark_json_in_a_jsonl_file(tmp_path):
    with pytest.raises(UsageError, match="JSON Lines"):
        merge([RUNS / "h200-micro.json"], tmp_path / "m.jsonl")
    assert not (tmp_path / "m.jsonl").exists()


def test_main_writes_file_and_summary_csv(tmp_path, capsys):
    out, csv = tmp_path / "m.jsonl", tmp_path / "summary.csv"
    code = main(["-o", str(out), "--summary-csv", str(csv), str(NOTIFY), str(RUNS / "h200-clock.jsonl")])
    assert code == 0
    err = capsys.readouterr().err
    assert err.strip() == f"merged 2 segment(s), 58 record(s) from 2 file(s) into {out}"
    table = pd.read_csv(csv)
    assert len(table) == len(load(out).summary) == 68 + 8


def test_main_exit_codes(tmp_path, capsys):
    out = tmp_path / "m.jsonl"
    assert main(["-o", str(out), str(tmp_path / "missing.jsonl")]) == 2
    assert "hetprobe merge: error:" in capsys.readouterr().err
    assert not out.exists()
    assert main(["-o", str(out), str(NOTIFY)]) == 0
    assert main(["-o", str(out), str(NOTIFY)]) == 2  # exists, no --overwrite
    assert "--overwrite" in capsys.readouterr().err
    assert main(["--overwrite", "-o", str(out), str(NOTIFY)]) == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"record":"header"\n{"record":"point"}\n')
    assert main(["--overwrite", "-o", str(out), str(bad)]) == 2
    assert "bad.jsonl:1" in capsys.readouterr().err
    assert main([str(NOTIFY)]) == 2  # argparse: -o is required
    assert "usage: hetprobe merge" in capsys.readouterr().err


def test_an_output_named_gz_is_gzip_and_the_same_bytes_every_time(tmp_path):
    """-o NAME.gz writes gzip (issue 36: it wrote plain JSON under a .gz name), with no name or time in its
    header, so the same inputs give the same bytes; every reader takes it as the plain file."""
    plain, packed, again = tmp_path / "m.jsonl", tmp_path / "m.jsonl.gz", tmp_path / "again.jsonl.gz"
    merge([NOTIFY, SWEEP], out=plain)
    merged = merge([NOTIFY, SWEEP], out=packed)
    merge([NOTIFY, SWEEP], out=again)
    assert packed.read_bytes()[:2] == b"\x1f\x8b"
    assert gzip.decompress(packed.read_bytes()) == plain.read_bytes()
    assert packed.read_bytes() == again.read_bytes()
    assert len(merged.records) == len(load(plain).records)
