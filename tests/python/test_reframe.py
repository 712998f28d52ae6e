"""The ReFrame test (tests/reframe/hetprobe_node_check.py) run by ReFrame itself, with the minimal site
config (local scheduler and launcher) on 2 simulated host devices: it passes with the shipped
references and fails, in its performance stage, with a tightened one. Skipped when ReFrame
(reframe-hpc, the test extra) is not installed, except under CI=true, where that fails."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA, REPO

import hetprobe
from hetprobe.node import gpus

HERE = REPO / "tests" / "reframe"
sys.path.insert(0, str(HERE))
import make_references  # noqa: E402


def reframe_command() -> list[str]:
    if importlib.util.find_spec("reframe") is not None:  # in this Python: the hetprobe it imports is ours
        return [
            sys.executable,
            "-c",
            "import sys; from reframe.frontend.cli import main; sys.argv[0] = 'reframe'; main()",
        ]
    found = shutil.which("reframe")
    if found:
        return [found]
    if os.environ.get("CI") == "true":
        pytest.fail("reframe is not installed: CI installs the test extra (pip install .[test]), reframe-hpc with it")
    pytest.skip("reframe is not installed (pip install reframe-hpc, or the package's test extra)")


def absolute_pythonpath() -> str:
    """$PYTHONPATH with its folders made absolute: ReFrame's job runs in its stage folder."""
    folders = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    return os.pathsep.join(str(Path(f).resolve()) for f in folders if f)


def run_reframe(tmp_path, name: str, *options: str):
    """(exit code, its output, the run report's test case) of one ReFrame run in tmp_path/name (HOME
    there too: ReFrame keeps its state under ~)."""
    prefix = tmp_path / name
    prefix.mkdir()
    done = subprocess.run(
        reframe_command()
        + ["-C", str(HERE / "config" / "generic.py"), "-c", str(HERE / "hetprobe_node_check.py"), "-r"]
        + ["--prefix", str(prefix), "--report-file", str(prefix / "report.json")]
        + ["-S", f"hetprobe={sys.executable} -m hetprobe", "-S", "device=host", "-S", "quick=true"]
        + list(options),
        cwd=prefix,
        env=dict(os.environ, HETPROBE_HOST_DEVICES="2", HOME=str(prefix), PYTHONPATH=absolute_pythonpath()),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert (prefix / "report.json").exists(), done.stdout + done.stderr  # ReFrame did not get to run the test
    report = json.loads((prefix / "report.json").read_text())
    cases = report["runs"][0]["testcases"]
    assert len(cases) == 1, done.stdout + done.stderr
    return done.returncode, done.stdout + done.stderr, cases[0]


def test_the_node_check_passes_with_the_shipped_references(tmp_path):
    code, output, case = run_reframe(tmp_path, "shipped")
    assert code == 0 and case["result"] == "pass", output
    values = case["perfvalues"]
    for gpu in (0, 1):
        for key in ("roundtrip_ns", "write_gbs", "read_gbs", "copy_d2h_gbs", "copy_h2d_gbs", "clock_precision_ns"):
            value, reference, lower, upper, unit, result = values[f"local:default:gpu{gpu}_{key}"]
            assert value > 0 and result == "pass" and unit in ("ns", "GB/s")
    assert "local:default:gpu0_launch_sync_ns" not in values  # the host backend launches no kernels


def test_the_node_check_fails_with_a_tightened_reference(tmp_path):
    shipped = json.loads((HERE / "references" / "host-ci.json").read_text())
    shipped["*"]["gpu1_write_gbs"] = [1000.0, -0.1, None, "GB/s"]  # 900 GB/s at least: no host does that
    tight = tmp_path / "tight.json"
    tight.write_text(json.dumps(shipped))
    code, output, case = run_reframe(tmp_path, "tight", "-S", f"reference_file={tight}")
    assert code != 0 and case["result"] == "fail" and case["fail_phase"] == "performance", output
    assert "gpu1_write_gbs" in case["fail_reason"]
    assert case["perfvalues"]["local:default:gpu0_write_gbs"][-1] == "pass"


def test_make_references_bounds_the_bad_direction(tmp_path):
    """The references come from characterize.json's per-GPU numbers as the package writes them (their
    keys, units and directions are hetprobe's, never a copy here): a bound above for a time, below
    for GB/s and the link, none for what is never compared."""
    table = gpus.table_records(hetprobe.per_gpu(DATA / "h200x2-verdict" / "run-1"))
    headline = json.loads((DATA / "h100-characterize-run-as-data" / "characterize.json").read_text())["headline"]
    refs = make_references.references({"per_gpu": table, "headline": headline}, 0.1)
    assert refs["gpu0_roundtrip_ns"] == [table[0]["round trip (ns)"], None, 0.1, "ns"]
    assert refs["gpu1_write_gbs"] == [table[1]["write (GB/s)"], -0.1, None, "GB/s"]
    assert refs["gpu1_link_width"] == [16.0, -0.1, None, "lanes"]
    measured = {m.key for m in gpus.METRICS + gpus.LINK_METRICS if table[0][m.column] is not None}
    assert {k.removeprefix("gpu0_") for k in refs if k.startswith("gpu0_")} == measured
    # The headline's ratios, as characterize.json holds them: a larger ratio is worse.
    assert refs["headline_warm_ratio"] == [headline["warm"]["value"], None, 0.1, "ratio to SSB"]
    assert refs["headline_cold_ratio"][0] == headline["cold"]["value"]
    assert table[0]["numbers"]["write_gbs"]["ci95"][0] < table[0]["write (GB/s)"]  # the rounds' interval
    run = tmp_path / "run"
    run.mkdir()
    (run / "characterize.json").write_text(json.dumps({"per_gpu": table}))
    done = subprocess.run(
        [sys.executable, str(HERE / "make_references.py"), str(run), "--system", "c:gpu", "--tolerance", "5%"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and json.loads(done.stdout)["c:gpu"]["gpu1_write_gbs"][1:] == [-0.05, None, "GB/s"]
    # A run from before the numbers: said, exit 2.
    (run / "characterize.json").write_text(json.dumps({"per_gpu": [{"write (GB/s)": 50.0}]}))
    done = subprocess.run([sys.executable, str(HERE / "make_references.py"), str(run)], capture_output=True, text=True)
    assert done.returncode == 2 and "no per-GPU numbers" in done.stderr and "before 2026-12-07" in done.stderr
