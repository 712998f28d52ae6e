"""The node verdict and the baseline check on the committed runs of two H200s (notebooks/data/
h200x2-verdict, issue 34): three healthy runs flag nothing and check within each other; a run with
another process on GPU 1 (its copy engines, or its SMs) flags GPU 1 alone, confirmed on re-measure, and
its check exits 1 naming it; a neighbour's copies through host memory slow the other GPU too, and the
verdict says so rather than guess. The rules themselves are C++'s (tests/unit/test_node_verdict.cpp)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

import hetprobe
from hetprobe.node import verdict

VERDICT = "h200x2-verdict"


def hetprobe_check(*args):
    return subprocess.run(
        [sys.executable, "-m", "hetprobe", "check", *map(str, args)], capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def runs(data):
    return data / VERDICT


def counted(v: dict) -> set:
    return {(f["gpu"], f["metric"], f["status"]) for f in v["anomalies"]}


@pytest.mark.parametrize("run", ["run-1", "run-2", "run-3"])
def test_a_healthy_node_flags_nothing(runs, run):
    v = verdict.node_verdict(runs / run)
    assert v["flags"] == [] and v["anomalies"] == [] and v["remeasure_gpus"] == []
    assert v["gpus"] == 2 and v["launches"] == 3
    for g in v["per_gpu"]:
        for key, m in g["metrics"].items():
            assert m["ratio"]["n"] == 18 and m["ratio"]["ci95"] is not None, (g["gpu"], key)


@pytest.mark.parametrize("mode", ["copy", "kernel"])
def test_another_tenant_on_gpu_1_is_flagged_alone_and_confirmed(runs, mode):
    v = verdict.node_verdict(runs / f"run-disturbed-{mode}")
    assert v["remeasure_launches"] == 1
    assert {gpu for gpu, _, _ in counted(v)} == {1}
    assert (1, "launch_sync_ns", "confirmed") in counted(v)
    # characterize recorded the same verdict it made then
    manifest = (runs / f"run-disturbed-{mode}" / "characterize.json").read_text()
    assert "confirmed on re-measure" in manifest


def test_a_neighbours_host_traffic_slows_both_gpus_and_the_verdict_says_which_number(runs):
    """Copies to and from host memory on GPU 1 (the old disturber) slowed GPU 0's writes as much as GPU 1's
    copies: host memory and the root complex are shared. The verdict flags each GPU in the number that is
    worse than the other's, both confirmed: a node-wide disturbance, not one bad GPU."""
    v = verdict.node_verdict(runs / "run-disturbed-host")
    assert {(g, m) for g, m, _ in counted(v)} == {(0, "write_gbs"), (1, "copy_d2h_gbs"), (1, "copy_h2d_gbs")}


def test_check_of_the_repeats_exits_0_and_of_the_disturbed_exits_1(runs):
    for run in ("run-2", "run-3"):
        done = hetprobe_check(runs / run, "--baseline", runs / "run-1")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "every number within 10% of the baselines' worst (1 run(s), 3 launches" in done.stdout
    for mode in ("copy", "kernel"):
        done = hetprobe_check(runs / f"run-disturbed-{mode}", "--baseline", runs / "run-1")
        assert done.returncode == 1, done.stdout + done.stderr
        lines = done.stdout.splitlines()[1:]
        assert lines and all(line.startswith("  GPU 1 (0000:00:07.0): ") for line in lines), lines
    # Several baselines of one node: their launches make the range.
    both = hetprobe.check(runs / "run-3", [runs / "run-1", runs / "run-2"])
    verdict = both.attrs["verdict"]
    assert verdict["outside"] == [] and verdict["baseline_launches"] == 6 and verdict["baseline_runs"] == 2
    assert len(both) == 12 and set(both["status"]) == {"within"} and both["unit"].notna().all()


def test_check_in_python_gives_the_rows_the_cli_judges(runs):
    """hetprobe.check's frame: a row per GPU and number, the one outside the one the CLI names, with
    its numbers (the run's interval beyond the baselines' worst by more than the tolerance)."""
    done = hetprobe_check(runs / "run-disturbed-copy", "--baseline", runs / "run-1")
    table = hetprobe.check(runs / "run-disturbed-copy", runs / "run-1")
    outside = table[table["status"] == "outside"]
    assert len(table) == 12 and list(zip(outside["GPU"], outside["metric"])) == [(1, "launch_sync_ns")]
    row = outside.iloc[0]
    assert row["lower"] > row["baseline worst"] * 1.1 and row["unit"] == "ns"
    assert done.stdout.splitlines()[1] == f"  GPU 1 (0000:00:07.0): {row['why']}"


def test_the_committed_check_lines_are_what_check_says_today(runs):
    """The folder's README.md keeps each check's output from the session: the lines naming the numbers
    outside come again from the committed files (the first line names the paths of that session)."""
    readme = (runs / "README.md").read_text()
    done = hetprobe_check(runs / "run-disturbed-copy", "--baseline", runs / "run-1")
    assert done.stdout.splitlines()[1] in readme


def test_a_baseline_of_an_older_run_without_rounds_is_refused(data, runs):
    done = hetprobe_check(runs / "run-2", "--baseline", data / "h200x2-nodecheck" / "run-a")
    assert done.returncode == 2 and "has no gpus rounds" in done.stderr and done.stdout == ""


@pytest.mark.parametrize("side", ["baseline", "run"])
@pytest.mark.parametrize("damage", ["corrupt", "cut", "short", "empty", "directory", "fifo", "device"])
def test_a_file_that_cannot_be_read_whole_is_named_and_refused(runs, tmp_path, damage, side):
    """Nothing skipped in silence (issue 36): a baseline's or the checked run's launch file that is
    corrupt, cut inside a line or at a line's end (fewer records than characterize.json says its step
    wrote), empty, a directory, a FIFO or a device is refused, exit 2, naming the file, where it once
    passed with one launch fewer ("every number within")."""
    import os
    import shutil

    damaged = tmp_path / side
    shutil.copytree(runs / ("run-1" if side == "baseline" else "run-2"), damaged)
    bad = damaged / "gpus.launch2.jsonl"
    whole = bad.read_text()
    bad.unlink()
    if damage == "corrupt":
        bad.write_text("garbage{\n")
    elif damage == "cut":
        bad.write_text(whole[: len(whole) // 2])
    elif damage == "short":  # whole lines, fewer of them: only the manifest's count shows it
        bad.write_text("".join(whole.splitlines(keepends=True)[:-3]))
    elif damage == "empty":
        bad.write_text("")
    elif damage == "directory":
        bad.mkdir()
    elif damage == "fifo":
        os.mkfifo(bad)
    else:
        bad.symlink_to("/dev/zero")
    run, base = (runs / "run-2", damaged) if side == "baseline" else (damaged, runs / "run-1")
    done = hetprobe_check(run, "--baseline", base)
    assert done.returncode == 2, done.stdout + done.stderr
    assert str(bad) in done.stderr and done.stdout == "", done.stderr


def test_a_run_directory_this_user_may_not_list_is_not_called_no_run_directory(runs, monkeypatch):
    """A baseline the user may not read gets "permission denied", not "not a run directory" (issue 36)."""
    import os

    listable = os.access
    monkeypatch.setattr(verdict.os, "access", lambda p, mode: False if str(p).endswith("run-1") else listable(p, mode))
    with pytest.raises(hetprobe.UsageError, match="run-1: permission denied"):
        verdict.baseline_verdict(runs / "run-2", runs / "run-1")


def test_a_launch_given_twice_is_refused_as_show_pool_refuses_it(runs, tmp_path):
    """Issue 54: a baseline beside its own copy without its second launch read "2 run(s), 5 launches": the
    same launches counted twice, narrowing the range. A launch is counted once; a run is not its own
    baseline."""
    copy = tmp_path / "run-1-copy"
    shutil.copytree(runs / "run-1", copy)
    next(copy.glob("gpus.launch2.jsonl*")).unlink()
    done = hetprobe_check(runs / "run-3", "--baseline", runs / "run-1", copy)
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert f"the baseline's {copy}/gpus.jsonl" in done.stderr and "(the same header)" in done.stderr, done.stderr
    done = hetprobe_check(runs / "run-1", "--baseline", runs / "run-1")
    assert done.returncode == 2 and "the launch of the run's" in done.stderr, done.stderr
