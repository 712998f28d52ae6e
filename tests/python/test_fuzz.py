"""Fuzz tests of what a careless user hands hetprobe (issue 54): the node model's reader fed damaged
records, and the Python API fed values of every wrong type. Each input either works or is refused with
a UsageError (exit 2 on the CLI) naming what is wrong; nothing else escapes. Seeded, so a failure
repeats; the issue's classes are the seed inputs."""

from __future__ import annotations

import json
import random
import subprocess

import pytest
from conftest import RUNS, jsonl_records, write_jsonl

import hetprobe
from hetprobe.errors import ResultsFileError, UsageError

SOURCE = RUNS / "h100-characterize-run-as-data" / "interference.jsonl.gz"
# The classes, then anything JSON can hold.
SEEDS = ["fast", 1e308, 1e-300, -1.0, 0, None, True, [], {}, "", -3.0, 2**64]
FIELDS = [
    ("send_time_ns", "round_medians", 0),
    ("ratio_to_ssb_rounds", None, 0),
    ("size_bytes", None, None),
    ("load", "traffic_during_send_gbs", None),
    ("layout", None, None),
    ("load_kind", None, None),
    ("mpi_path", "eager_limit_bytes", None),
    ("send_time_ns", None, None),
]


def _damaged(rng: random.Random) -> list[dict]:
    records = jsonl_records(SOURCE)
    points = [r for r in records if r.get("record") == "point"]
    for _ in range(rng.randint(1, 3)):
        record = rng.choice(points)
        field, inner, index = rng.choice(FIELDS)
        value = rng.choice(SEEDS)
        if inner is None and index is None:
            record[field] = value
        elif inner is None and isinstance(record.get(field), list) and record[field]:
            record[field][index] = value
        elif isinstance(record.get(field), dict) and index is None:
            record[field][inner] = value
        elif (
            isinstance(record.get(field), dict) and isinstance(record[field].get(inner), list) and record[field][inner]
        ):
            record[field][inner][index] = value
    return records


@pytest.mark.parametrize("seed", range(40))
def test_the_model_fits_or_refuses_a_damaged_run(tmp_path, seed):
    path = write_jsonl(tmp_path / "interference.jsonl", _damaged(random.Random(seed)))
    try:
        hetprobe.model(path)
    except (UsageError, ResultsFileError) as e:
        assert str(path.name) in str(e) or "node model" in str(e), e
    if seed % 8 == 0:  # the CLI as well, on some: exit 0 or 2, never a crash
        done = subprocess.run([hetprobe.binary(), "model", str(path)], capture_output=True, text=True, timeout=120)
        assert done.returncode in (0, 2), done.stderr


WRONG = [None, 0, -1, 1.5, float("nan"), "", "x", b"bytes", [], [None], {}, {"a": 1}, object(), True]


@pytest.mark.parametrize("value", WRONG, ids=repr)
@pytest.mark.parametrize(
    "call",
    [
        lambda v: hetprobe.load(v),
        lambda v: hetprobe.model(v),
        lambda v: hetprobe.model(RUNS / "h100-characterize-run-as-data", halo=v),
        lambda v: hetprobe.check(RUNS / "h100-characterize-run-as-data", v),
    ],
    ids=["load", "model run", "model halo", "check baseline"],
)
def test_a_public_function_refuses_a_wrong_value_by_name(call, value):
    try:
        call(value)
    except (UsageError, ResultsFileError):
        pass


@pytest.mark.parametrize(
    "keyword, value",
    [
        (keyword, value)
        for keyword in ("skip", "gpus_args", "reps", "timeout_s", "hosts", "launches", "directory")
        for value in WRONG
        if not (value is None and keyword in ("directory", "reps", "timeout_s", "hosts", "launches"))  # defaults
        and not (keyword == "skip" and value == [])  # skips nothing: a whole run, not a wrong value
    ],
    ids=repr,
)
def test_characterize_refuses_a_wrong_keyword_before_writing(tmp_path, monkeypatch, keyword, value):
    monkeypatch.chdir(tmp_path)  # a default directory, if one is made, lands here
    run = tmp_path / "run"
    arguments = {"directory": run, "device": "host", "skip": ["gpus", "notify", "clock", "bandwidth", "interference"]}
    arguments[keyword] = value
    try:
        hetprobe.characterize(**arguments, report=False, progress=False)
    except UsageError:
        assert not run.exists() or keyword == "directory"
        return
    where = tmp_path / value if keyword == "directory" else run  # a name such as "x" is a fine directory
    assert json.loads((where / "characterize.json").read_text())  # accepted: a run that ran nothing
