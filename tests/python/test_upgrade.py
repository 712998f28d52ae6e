"""Files of an older schema_version read in the current form (C++'s upgrade, bench/core/record_upgrade.cpp,
which Python's reader calls through the compiled module), and the values that changed form read as C++
writes them."""

from __future__ import annotations

import copy
import json
import subprocess

import pandas as pd
import pytest
from conftest import RUNS, jsonl_records

import hetprobe
from hetprobe import _core
from hetprobe.data.jsonl import read_jsonl


def upgraded(records: list[dict]) -> list[dict]:
    """One file's records through the upgrade every reader makes."""
    return _core.upgrade_records(json.dumps(records))


PARTS_FILE = RUNS / "h200-halo-parts" / "self-400.jsonl.gz"  # version 1: parts auto, whole, 8 KiB and 32 KiB


def test_a_version_1_launch_part_size_of_0_reads_as_whole():
    raw = [r for r in jsonl_records(PARTS_FILE) if r["record"] == "halo"]
    assert jsonl_records(PARTS_FILE)[0]["schema_version"] == 1
    assert {r["launch"]["part_bytes"] for r in raw if r["parts"] == "whole"} == {0}  # the sentinel, as written
    read = [rec for _, _, rec in read_jsonl(PARTS_FILE)[0] if rec["record"] == "halo"]
    assert len(read) == len(raw)
    for old, new in zip(raw, read):
        for key in ("launch", "unpack_launch"):
            if old[key] is None:
                assert new[key] is None
                continue
            assert "part_bytes" not in new[key]
            bytes_ = old[key]["part_bytes"]
            assert new[key]["parts"] == ("whole" if bytes_ == 0 else bytes_), (old["setup"], key)
    assert hetprobe.load(PARTS_FILE).records[1]["launch"] == read[0]["launch"]  # load reads the same


def test_the_upgrade_changes_only_old_records_and_once():
    header = {"record": "header", "probe": "halo", "schema_version": 1}
    halo = {"record": "halo", "probe": "halo", "launch": {"blocks": 2, "threads_per_block": 128, "part_bytes": 0}}
    records = upgraded([header, halo])
    assert records[0] == header and records[1]["launch"] == {"blocks": 2, "threads_per_block": 128, "parts": "whole"}
    assert upgraded(records) == records
    assert upgraded([{**header, "schema_version": _core.schema_version}, halo])[1] == halo


def test_parts_read_as_show_prints_them():
    """The halo table's parts_text is C++'s text form: the column `hetprobe show` prints, row for row."""
    table = hetprobe.data.halo_table(hetprobe.load(PARTS_FILE))
    assert set(table["parts_text"]) == {"auto", "whole", "8KiB", "32KiB"}
    assert (table["parts_text"] == [_core.part_size_text(p) for p in table["parts"]]).all()
    shown = subprocess.run(
        [hetprobe.binary(), "show", str(PARTS_FILE)], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    heading = next(i for i, line in enumerate(shown) if line.startswith("layout "))
    at = shown[heading].index(" parts ") + 1
    rows = [line for line in shown[heading + 1 :] if line and not line.startswith(("#", " ", "warning"))]
    assert [line[at:].split()[0] for line in rows] == list(table["parts_text"])


def test_a_version_1_halo_send_reads_as_send_mode():
    committed = PARTS_FILE  # a version-1 halo run
    raw = jsonl_records(committed)
    assert raw[0]["config"]["send"] == ["isend"] and "send_mode" not in raw[0]["config"]
    r = hetprobe.load(committed)
    assert r.header("halo")["config"]["send_mode"] == ["isend"]
    halo = [rec for rec in r.records if rec.get("record") == "halo"]
    assert [rec["send_mode"] for rec in halo] == [rec["send"] for rec in raw if rec["record"] == "halo"]
    assert not any("send" in rec for rec in halo)
    rows = r.summary[(r.summary["record"] == "halo") & (r.summary["metric"] == "iteration_ns")]
    assert set(rows["send_mode"]) == {"isend"}


def test_version_1_bandwidth_rows_get_their_keys():
    """A version-1 bandwidth file (the display name alone) reads with pass, kind and access, and the
    per-GPU table takes its plain rows by those keys."""
    path = RUNS / "h200x2-load" / "bandwidth.jsonl"
    assert all("pass" not in r for r in jsonl_records(path))
    r = hetprobe.load(path)
    rows = r.summary[r.summary["probe"] == "bandwidth"]
    access = [None if pd.isna(a) else a for a in rows["access"]]  # the column's missing values
    keys = {w: (p, k, a) for w, p, k, a in zip(rows["writer"], rows["pass"], rows["kind"], access)}
    assert keys["plain one-pass kernel"] == ("plain", "write", None)
    assert keys["stacked (persistent)"] == ("persistent", "write", "stacked")
    assert keys["load read stream"] == ("load", "read", "stream")
    assert keys["load copy-d2h"] == ("load", "copy-d2h", None)
    assert set(rows["pass"]) == {"plain", "persistent", "load"}


def test_an_old_bandwidth_row_gets_the_summary_the_probe_writes(tmp_path):
    """One owner for the statistics: a version-1 row's gbs_summary is computed by the compiled module,
    and equals what the probe itself writes for the same samples."""
    from hetprobe import _core, load

    old = RUNS / "h200-bandwidth.jsonl"  # schema_version 1: samples (gbs) without their summary
    rows = [r for r in load(old).records if r.get("record") == "point"]
    assert rows and all(r["gbs_summary"] == _core.summarize(r["gbs"]).as_dict() for r in rows)
    assert rows[0]["gbs_summary"]["median"] == rows[0]["median_gbs"]


def test_a_version_2_interference_point_reads_with_a_null_mpi_path():
    header = {"record": "header", "probe": "interference", "schema_version": 2}
    point = {"record": "point", "probe": "interference", "size_bytes": 1024}
    written = {**point, "mpi_path": {"carrier": "tcp"}}
    records = [header, copy.deepcopy(point), {"record": "host_memory", "probe": "interference"}]
    records += [{**header, "schema_version": 3}, copy.deepcopy(point), copy.deepcopy(written)]
    records = upgraded(records)
    assert "mpi_path" in records[1] and records[1]["mpi_path"] is None
    assert "mpi_path" not in records[2]  # only points carry it
    assert "mpi_path" not in records[4] and records[5] == written  # version 3: as written
    committed = [
        rec for _, _, rec in read_jsonl(RUNS / "h200-interference-sweep.jsonl.gz")[0] if rec["record"] == "point"
    ]
    assert committed and all(rec["mpi_path"] is None for rec in committed)


def test_version_3_interference_load_bytes_read_typed():
    def config_of(config: dict, version: int) -> dict:
        header = {"record": "header", "probe": "interference", "schema_version": version, "config": config}
        return upgraded([header])[0]["config"]

    per_message = {"load_bytes": None, "load_bytes_per_message": True}
    assert config_of({"load_bytes": "message size", "secondary_bytes": "message size"}, 3) == per_message
    fixed = config_of({"load_bytes": 268435456, "secondary_bytes": 268435456}, 3)
    assert fixed == {"load_bytes": 268435456, "load_bytes_per_message": False}
    paper = {**per_message, "paper": True}  # version 1's paper header, from before config.paper
    assert config_of({"secondary_bytes": "message size"}, 1) == paper
    assert config_of({"load_bytes": 4096}, 4) == {"load_bytes": 4096}  # version 4: as written


OLD_FILES = [
    RUNS / "h200-halo-parts" / "self-400.jsonl.gz",  # version 1: halo part sizes
    RUNS / "h200-bandwidth.jsonl",
    RUNS / "h200-interference-sweep.jsonl.gz",  # version 2 or older: mpi_path, load_bytes
    RUNS / "h200x2-characterize" / "interference-paper.jsonl",
]


@pytest.mark.parametrize("path", OLD_FILES, ids=lambda p: p.name)
def test_the_reader_upgrades_as_cpp_does(path):
    """The reader's records of a committed older file are C++'s upgrade of its lines, record by record."""
    read = read_jsonl(path)[0]
    written = [json.loads(raw) for _, raw, _ in read]
    assert written[0]["schema_version"] < _core.schema_version
    assert [rec for _, _, rec in read] == upgraded(written) != written


_BY_PATH = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("jsonl", sys.argv[1])
jsonl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(jsonl)
print(json.dumps(jsonl.records(sys.argv[2])))
"""


@pytest.mark.parametrize("site", [True, False], ids=["package installed", "no package"])
def test_the_reader_by_path_takes_an_installed_compiled_module(site):
    """tests/gpu's scripts load the reader by path: with the package installed it upgrades through the
    installed compiled module (without importing the package); without one it reads the lines as written."""
    import sys

    from hetprobe.data import jsonl

    path = OLD_FILES[0]
    flags = [] if site else ["-S"]  # -S: no site-packages, so no hetprobe to find
    done = subprocess.run(
        [sys.executable, *flags, "-c", _BY_PATH, jsonl.__file__, str(path)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    written = [json.loads(raw) for _, raw, _ in read_jsonl(path)[0]]
    assert json.loads(done.stdout) == (upgraded(written) if site else written)
