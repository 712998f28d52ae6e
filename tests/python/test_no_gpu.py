"""No GPU, said plainly: where the build carries a GPU backend but the machine has no GPU (or no
driver), characterize --device auto says so once ("no GPU found (no CUDA driver); using the host
backend"), never with the runtime's driver error. Skipped where a GPU is present."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def hetprobe(*args, **kw):
    return subprocess.run([sys.executable, "-m", "hetprobe", *args], capture_output=True, text=True, **kw)


def test_characterize_on_auto_says_once_that_there_is_no_gpu(tmp_path):
    listing = json.loads(hetprobe("devices", "--json").stdout)
    if listing["auto"] != "host":
        pytest.skip(f"--device auto picks {listing['auto']} here")
    reason = listing["auto_reason"]
    assert reason.endswith("; using the host backend"), reason
    done = hetprobe(
        "characterize",
        "--quick",
        "--skip",
        "interference,clock,bandwidth",
        "--progress",
        "lines",
        str(tmp_path / "r"),
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count(reason) == 1, done.stderr
    assert "cudaError" not in done.stderr and "hipError" not in done.stderr
