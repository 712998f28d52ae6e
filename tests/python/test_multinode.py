"""The tests across simulated hosts (tests/multinode/): they pass shellcheck, say "skipped" and pass
where they cannot make namespaces (not root), and the record checks they judge by (check_hosts.py)
pass good records and name what is off in bad ones. The tests themselves run from tests/run_all.sh."""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

MULTINODE = Path(__file__).resolve().parents[1] / "multinode"
SPEC = importlib.util.spec_from_file_location("check_hosts", MULTINODE / "check_hosts.py")
check_hosts = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(check_hosts)


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
def test_the_multinode_scripts_pass_shellcheck():
    scripts = sorted(str(p) for p in MULTINODE.glob("*.sh"))
    done = subprocess.run(["shellcheck", "-x", *scripts], capture_output=True, text=True, cwd=MULTINODE)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv")
def test_without_root_every_test_says_why_it_skips_and_passes():
    # The scripts as user nobody, from a folder it may read (a checkout under /root it may not).
    folder = Path(tempfile.mkdtemp(prefix="hetprobe-multinode-"))
    try:
        folder.chmod(0o755)
        for script in MULTINODE.glob("*.sh"):
            shutil.copy(script, folder)
        nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        done = subprocess.run([*nobody, "bash", str(folder / "run.sh")], capture_output=True, text=True, cwd="/")
    finally:
        shutil.rmtree(folder)
    assert done.returncode == 0, done.stdout + done.stderr
    for test in ("two_hosts", "four_hosts", "slurm"):
        assert f"skipped: multinode {test}: needs root to make network namespaces" in done.stdout, done.stdout
    assert "3 test(s) passed or skipped" in done.stdout


def _header(sender: str, receiver: str, resumed: bool = False) -> dict:
    ranks = [
        {"rank": r, "host": h, "network": [{"name": "eth0", "addresses": [f"10.200.0.{r + 1}/24"]}], "topology": None}
        for r, h in enumerate((sender, receiver))
    ]
    transport = {"network_btl": "tcp", "network_eager_limit_bytes": 65536}
    return {
        "record": "header",
        "schema": "hetprobe.results",
        "schema_version": 3,
        "host": sender,
        "resumed": resumed,
        "ranks": ranks,
        "mpi": {"transport": transport},
    }


def _point(size: int, sender: str, receiver: str) -> dict:
    path = {
        "sender_host": sender,
        "receiver_host": receiver,
        "across_hosts": True,
        "carrier": "tcp",
        "eager_limit_bytes": 65536,
        "at_or_above_eager_limit": size >= 65536,
        "sender_interface": "eth0",
        "receiver_interface": "eth0",
    }
    key = {"layout": "SSB", "access": "stream", "load_kind": "none", "load_gpus": 0, "load_rate": None}
    return {
        "record": "point",
        "size_bytes": size,
        **key,
        "mpi_path": path,
        "status": "ok",
        "payload": {"check": "intact"},
    }


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_a_pair_across_hosts_passes_and_one_on_a_single_host_fails(tmp_path):
    good = [_header("hpa", "hpb"), _point(1024, "hpa", "hpb"), _point(65536, "hpa", "hpb")]
    assert check_hosts.check_pair(_write(tmp_path / "good.jsonl", good), "hpa", "hpb") == 2
    one_host = copy.deepcopy(good)
    one_host[0]["ranks"][1]["host"] = "hpa"
    with pytest.raises(AssertionError, match="hpa"):
        check_hosts.check_pair(_write(tmp_path / "one.jsonl", one_host), "hpa", "hpb")
    wrong_mark = copy.deepcopy(good)
    wrong_mark[2]["mpi_path"]["at_or_above_eager_limit"] = False
    with pytest.raises(AssertionError, match="65536"):
        check_hosts.check_pair(_write(tmp_path / "mark.jsonl", wrong_mark), "hpa", "hpb")


def test_a_merged_file_must_hold_every_pair_and_no_other(tmp_path):
    merged = [_header("hpa", "hpb"), _point(1024, "hpa", "hpb"), _header("hpc", "hpd"), _point(1024, "hpc", "hpd")]
    path = _write(tmp_path / "merged.jsonl", merged)
    assert check_hosts.check_merged(path, ["hpa,hpb", "hpc,hpd"]) == 2
    with pytest.raises(AssertionError):
        check_hosts.check_merged(path, ["hpa,hpb", "hpc,hpd", "hpa,hpc"])


def test_a_resumed_file_must_hold_each_point_once(tmp_path):
    first = [_header("hpc", "hpd"), _point(1024, "hpc", "hpd")]
    resumed = first + [_header("hpc", "hpd", resumed=True), _point(4096, "hpc", "hpd")]
    check_hosts.check_resumed(_write(tmp_path / "ok.jsonl", resumed), 2)
    twice = first + [_header("hpc", "hpd", resumed=True), _point(1024, "hpc", "hpd")]
    with pytest.raises(AssertionError, match="measured twice"):
        check_hosts.check_resumed(_write(tmp_path / "twice.jsonl", twice), 2)
