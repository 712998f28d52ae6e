"""tests/mpi/check_halo.py, the halo records' field-by-field check that tests/mpi/halo.sh runs: it
passes a real host-backend run and names what is off in a damaged one."""

import importlib.util
import json
from pathlib import Path

import pytest
from conftest import run_on_host

SPEC = importlib.util.spec_from_file_location(
    "check_halo", Path(__file__).resolve().parents[1] / "mpi" / "check_halo.py"
)
check_halo = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(check_halo)


@pytest.fixture(scope="module")
def halo_run(tmp_path_factory):
    path = tmp_path_factory.mktemp("halo") / "halo.jsonl"
    run_on_host("halo", path, cube=40, rounds=1, iterations=2)
    return path


def test_a_real_run_passes(halo_run):
    # 2 ranks x 3 setups (the default variants) x 1 layout, 26 messages per rank.
    assert check_halo.check(halo_run, 2, 3, 2, 1, 26) == 6


def test_a_damaged_payload_is_named(halo_run, tmp_path):
    records = [json.loads(line) for line in halo_run.read_text().splitlines()]
    damaged = next(r for r in records if r.get("record") == "halo")
    damaged["payload"]["check"] = "mismatch"
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(AssertionError, match="mismatch"):
        check_halo.check(bad, 2, 3, 2, 1, 26)


def test_a_missing_record_is_counted(halo_run):
    with pytest.raises(AssertionError):
        check_halo.check(halo_run, 2, 4, 2, 1, 26)  # 4 setups asked, 3 measured
