"""Shared fixtures of the Python tests: the repository, the committed H200 data, small tmp files, and one
fresh host-backend characterisation (the main job, --quick) shared by the session.

The tests import the installed package (`pip install .`), never the source folder."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "notebooks" / "data"  # the notebooks' data: for the tests of that folder and its campaigns
RUNS = REPO / "tests" / "data" / "runs"  # real runs, frozen as the tests' fixtures (its README)
import matplotlib  # noqa: E402

matplotlib.use("Agg")  # no display in tests; the plots never use pyplot anyway


def plain_bytes(path) -> bytes:
    """A results file's bytes as written: a gzip-compressed one (NAME.jsonl.gz) decompressed."""
    data = Path(path).read_bytes()
    return gzip.decompress(data) if str(path).endswith(".gz") else data


def jsonl_records(path) -> list[dict]:
    """Every record of a complete JSON Lines file, read independently of hetprobe.load."""
    return [json.loads(line) for line in plain_bytes(path).decode().splitlines() if line.strip()]


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture
def data() -> Path:
    return DATA


@pytest.fixture
def copy_data(tmp_path):
    """copy_data(name, new_name=None) -> the path of a copy of tests/data/runs/<name> in tmp_path. A
    gzip-compressed file (NAME.jsonl.gz) is copied as its text, NAME.jsonl, for a test to edit."""

    def copy(name: str, new_name: str | None = None) -> Path:
        plain = name.removesuffix(".gz") if name.endswith(".jsonl.gz") else name
        target = tmp_path / (new_name or Path(plain).name)
        target.write_bytes(plain_bytes(RUNS / name))
        return target

    return copy


@pytest.fixture
def notify_header() -> dict:
    """The header record of h200-notify.jsonl.gz, to build small synthetic notify files."""
    return jsonl_records(RUNS / "h200-notify.jsonl.gz")[0]


def skipped_mechanism(reason: str) -> dict:
    """A notify mechanism record that was skipped (launch+device-sync), for `reason`."""
    return {
        "record": "mechanism",
        "probe": "notify",
        "mechanism": "launch+device-sync",
        "go": "g",
        "done": "d",
        "setup": {"host_memory": "default"},
        "status": "skipped",
        "skipped_reason": reason,
        "rank": 0,
    }


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture(scope="session")
def handover_file(tmp_path_factory) -> Path:
    """A host run of notify's handover part alone, in two orders (volatile:relaxed, acqrel)."""
    import hetprobe

    path = tmp_path_factory.mktemp("handover") / "notify.jsonl"
    done = subprocess.run(
        [hetprobe.binary(), "notify", "--device", "host", "--parts", "handover", "--orders", "volatile:relaxed,acqrel"]
        + ["--handover-samples", "50", "--warmup", "5", "--quiet", "--out", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return path


def run_on_host(probe: str, out, **options):
    """hetprobe.run_mpi(probe, out=out) as the tests' small runs make it: on the host backend, quiet, with
    one warm-up unless `options` (the probe's other options) say otherwise."""
    import hetprobe

    return hetprobe.run_mpi(probe, out=out, device="host", quiet=True, **{"warmup": 1, **options})


def quick_characterize(*args) -> list[str]:
    """The command line of `python -m hetprobe characterize --quick --device host ARGS...`."""
    return [sys.executable, "-m", "hetprobe", "characterize", "--quick", "--device", "host", *map(str, args)]


@pytest.fixture(scope="session")
def host_run(tmp_path_factory):
    """(run directory, completed process) of `python -m hetprobe characterize --quick --device host --launches 3
    --paper`: three launches of each interference step, the paper's among them (--quick alone runs one of
    each), so the report's pooled rows have their intervals from the launches."""
    directory = tmp_path_factory.mktemp("characterize") / "run"
    done = subprocess.run(
        quick_characterize("--progress", "lines", "--launches", "3", "--paper", directory),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return directory, done


@pytest.fixture(scope="session")
def host_run_gpus(tmp_path_factory):
    """(run directory, completed process) of `python -m hetprobe characterize --quick --device host` with the
    host backend presenting two devices (HETPROBE_HOST_DEVICES=2, docs/testing.md): notify, clock and
    bandwidth on one rank per device, the loads from one device and from both, one launch of each step and
    no paper sweep, as a user's --quick run on a node of two GPUs."""
    directory = tmp_path_factory.mktemp("characterize-gpus") / "run"
    done = subprocess.run(
        quick_characterize("--progress", "lines", directory),
        env=dict(os.environ, HETPROBE_HOST_DEVICES="2"),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return directory, done
