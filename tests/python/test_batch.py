"""The batch sweeps (bench/batch): the plain-mpirun pair sweep and the Slurm
pair job (run here with stand-ins for srun and scontrol), each pair into its
own file, resumed where it stopped, and merged into one dataset."""

import os
import stat
import subprocess
from pathlib import Path

import pytest

import hetprobe
from hetprobe.run.probes import launch_env

BATCH = Path(__file__).resolve().parents[2] / "bench" / "batch"
SWEEP = [
    "--device",
    "host",
    "--sizes",
    "1KiB,4KiB",
    "--layouts",
    "SSB,PCB",
    "--access",
    "stream",
    "--reps",
    "3",
    "--warmup",
    "1",
    "--quiet",
]


def env_with(**extra):
    env = launch_env()
    env["HETPROBE"] = hetprobe.binary()
    env["MPIRUN_FLAGS"] = "--oversubscribe"
    env.update(extra)
    return env


def points(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if '"record":"point"' in line]


def test_mpirun_pair_sweep_writes_one_file_per_pair_resumes_and_merges(tmp_path):
    hosts = tmp_path / "hosts"
    hosts.write_text("# two slots of this machine stand in for two nodes\nlocalhost\nlocalhost\n")
    out = tmp_path / "sweep"
    cmd = ["bash", str(BATCH / "sweep_pairs.sh"), str(hosts), str(out), *SWEEP]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env_with())
    assert done.returncode == 0, done.stderr
    pair = out / "interference-localhost-localhost.jsonl"
    assert len(points(pair)) == 4
    # A requeue after a crash: the file lost its last point and ends in a cut line.
    lines = pair.read_text().splitlines(keepends=True)
    pair.write_text("".join(lines[:-1]) + lines[-1][:40])
    done = subprocess.run(cmd, capture_output=True, text=True, env=env_with())
    assert done.returncode == 0, done.stderr
    assert len(points(pair)) == 4  # the lost point measured again, none twice
    merged = hetprobe.load(out / "merged.jsonl")
    send = merged.summary[merged.summary["metric"] == "send_time_ns"]
    assert len(send) == 4 and (send["status"] == "ok").all()
    assert not merged.truncated


@pytest.mark.parametrize(
    "text, why",
    [
        ("", "names no hosts"),
        ("only-one-host\n", "fewer than 2 hosts"),
        ("localhost\n  \nlocalhost\n", "hosts:2: a blank name"),
        ("localhost slots=2\nlocalhost\n", "one host name a line"),
    ],
)
@pytest.mark.parametrize("script", ["sweep_pairs.sh", "submit_pairs.sh"])
def test_bad_host_file_is_a_usage_error(tmp_path, script, text, why):
    hosts = tmp_path / "hosts"
    hosts.write_text(text)
    out = tmp_path / "o"
    args = [str(hosts), str(out)] if script == "sweep_pairs.sh" else [str(hosts), "--", *SWEEP]
    done = subprocess.run(["bash", str(BATCH / script), *args], capture_output=True, text=True, env=env_with())
    assert done.returncode == 2, done.stderr
    assert f"{script.removesuffix('.sh')}: error: " in done.stderr and why in done.stderr, done.stderr
    assert not out.exists()  # nothing written


@pytest.fixture
def fake_slurm(tmp_path):
    """srun and scontrol stand-ins: srun starts the ranks with mpirun on this machine."""
    bin_dir = tmp_path / "fake-slurm"
    bin_dir.mkdir()
    scripts = {
        "scontrol": '#!/bin/sh\n[ "$1 $2" = "show hostnames" ] && echo "$3" | tr "," "\\n"\n',
        "srun": '#!/bin/sh\nwhile [ "${1#-}" != "$1" ]; do shift; done\nexec mpirun -np 2 --oversubscribe "$@"\n',
    }
    for name, text in scripts.items():
        path = bin_dir / name
        path.write_text(text)
        path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return bin_dir


def test_slurm_pair_job_continues_a_requeued_run(tmp_path, fake_slurm):
    out = tmp_path / "sweep"
    env = env_with(
        PATH=f"{fake_slurm}:{os.environ['PATH']}",
        SLURM_JOB_NODELIST="nodeA,nodeB",
        SLURM_JOB_ID="42",
        HETPROBE_OUTDIR=str(out),
        HETPROBE_BATCH_DIR=str(BATCH),
    )
    job = ["bash", str(BATCH / "sweep_pair.sbatch"), *SWEEP]
    first = subprocess.run(
        job[:2] + [a if a != "1KiB,4KiB" else "1KiB" for a in SWEEP], capture_output=True, text=True, env=env
    )
    assert first.returncode == 0, first.stderr
    pair = out / "interference-nodeA-nodeB.jsonl"
    assert len(points(pair)) == 2
    # The requeued job asks for the whole sweep: only the missing sizes run.
    second = subprocess.run(job, capture_output=True, text=True, env=dict(env, SLURM_RESTART_COUNT="1"))
    assert second.returncode == 0, second.stderr
    assert "restart 1" in second.stderr
    assert len(points(pair)) == 4
    merged = hetprobe.load(out / "merged.jsonl")
    assert len(merged.headers) == 2 and list(merged.headers["resumed"]) == [False, True]
