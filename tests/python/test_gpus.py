"""Every GPU of a node: characterize's per-GPU steps on several simulated host devices
(HETPROBE_HOST_DEVICES), the per-GPU table, the GPUs flagged against the node (synthetic tables,
and end to end with one device slowed by HETPROBE_HOST_SLOW), --tolerance, and the baseline check
(`hetprobe check`, `characterize --baseline`) with its exit codes."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from conftest import RUNS, jsonl_records, write_jsonl

import hetprobe
from hetprobe.errors import UsageError
from hetprobe.node import gpus, verdict
from hetprobe.report.gpus import display_table, summary_lines
from hetprobe.report.write import printed_summary
from hetprobe.run.probes import binary, launch_command, launch_env

PER_GPU_FILES = ("notify.jsonl", "clock.jsonl", "bandwidth.jsonl")
# This module's runs name their host devices as on a machine of another CPU (HETPROBE_HOST_CPU_NAME, a
# test option), parentheses and all, so the per-GPU tables and checks never lean on this machine's CPU.
SIMULATED_CPU = "Intel(R) Xeon(R) Processor"


def characterize(directory, devices: int, *extra: str, env=None, timeout=900):
    return subprocess.run(
        [sys.executable, "-m", "hetprobe", "characterize", "--quick", "--device", "host", "--progress", "lines"]
        + list(extra)
        + [str(directory)],
        env=dict(os.environ, HETPROBE_HOST_DEVICES=str(devices), HETPROBE_HOST_CPU_NAME=SIMULATED_CPU, **(env or {})),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def hetprobe_cli(*args: str, env=None):
    return subprocess.run(
        [sys.executable, "-m", "hetprobe", *args], capture_output=True, text=True, env=env, timeout=600
    )


@pytest.fixture(scope="module")
def two_gpus(tmp_path_factory):
    """(run directory, completed process) of characterize --quick on 2 host devices, per-GPU steps only."""
    directory = tmp_path_factory.mktemp("two") / "run"
    done = characterize(directory, 2, "--skip", "interference")
    assert done.returncode == 0, done.stdout + done.stderr
    return directory, done


@pytest.fixture(scope="module")
def three_gpus_one_slow(tmp_path_factory):
    """characterize --quick on 3 host devices, device 2 made 16 times slower (HETPROBE_HOST_SLOW): far enough
    that 3 ranks sharing 2 busy CPUs, which slow every device, still leave it below half the others."""
    directory = tmp_path_factory.mktemp("three") / "run"
    done = characterize(directory, 3, "--skip", "interference", env={"HETPROBE_HOST_SLOW": "2:16"})
    assert done.returncode == 0, done.stdout + done.stderr
    return directory, done


def copy_run(directory, tmp_path, name="copy"):
    """A copy of a run as another run of the node would be: its gpus launches its own (each header its own
    start time), for check counts a launch given twice once and refuses it."""
    target = tmp_path / name
    shutil.copytree(directory, target)
    for path in target.glob("gpus*.jsonl"):
        edit_records(
            path,
            lambda r: (
                r.update(start_time_utc=f"{r.get('start_time_utc')} (copy)") if r.get("record") == "header" else None
            ),
        )
    return target


def edit_records(path, edit):
    """Rewrites a JSON Lines file with edit(record) applied to every record."""
    records = jsonl_records(path)
    for r in records:
        edit(r)
    write_jsonl(path, records)


# --- end to end: the per-GPU steps on simulated devices ---------------------------------------------


@pytest.mark.parametrize("fixture, count", [("two_gpus", 2), ("three_gpus_one_slow", 3)])
def test_every_simulated_device_has_its_own_records(request, fixture, count):
    directory, done = request.getfixturevalue(fixture)
    manifest = json.loads((directory / "characterize.json").read_text())
    assert manifest["gpus"] == count
    for step in manifest["steps"]:
        assert step["command"].startswith(f"mpirun -np {count} ") and step["status"] == "ok", step
    for name in PER_GPU_FILES:
        lines = jsonl_records(directory / name)
        header, records = lines[0], lines[1:]
        assert [(r["rank"], r["device"]["ordinal"]) for r in header["ranks"]] == [(g, g) for g in range(count)]
        per_rank = [len([r for r in records if r["rank"] == g]) for g in range(count)]
        assert per_rank == [header["planned_records"]] * count, (name, per_rank)
    total = {s["probe"]: s["records"] for s in manifest["steps"]}
    assert f"notify {total['notify']}/{total['notify']}: GPU {count - 1}:" in done.stderr
    table = hetprobe.per_gpu(directory)
    assert list(table["GPU"]) == list(range(count)) and list(table["ordinal"]) == list(range(count))
    assert all(gpus.model(name) == SIMULATED_CPU for name in table["device"]), list(table["device"])
    measured = ["round trip (ns)", "write (GB/s)", "read (GB/s)", "copy-d2h (GB/s)", "copy-h2d (GB/s)"]
    measured += ["clock drift (ppm)", "clock precision (ns)"]
    assert table[measured].notna().all().all(), table
    assert table["launch+sync (ns)"].isna().all()  # the host backend launches no kernels
    assert (table["round trip setup"] == "volatile:relaxed pinned flags").all()
    assert manifest["per_gpu"] == gpus.table_records(table)


def test_the_report_and_summary_show_every_gpu(two_gpus):
    directory, done = two_gpus
    md = (directory / "report.md").read_text()
    section = md[md.index("## Every GPU") : md.index("## Notifications")]
    assert (
        "| GPU | PCI address | NUMA node | link (GT/s, lanes: now of max) | round trip (ns) | launch+sync (ns) | "
        "write (GB/s) | read (GB/s) | copy-d2h (GB/s) | copy-h2d (GB/s) | clock drift (ppm) | "
        "clock precision (ns) |"
    ) in section
    assert section.count("\n| 0 |") == 1 and section.count("\n| 1 |") == 1
    assert "volatile:relaxed pinned flags" in section and "](gpus.png)" in section
    assert (directory / "gpus.png").stat().st_size > 10_000
    assert "| plain one-pass kernel |" in section and "GPU 1 (GB/s)" in section
    assert "The sections below show GPU 0 (rank 0) in detail." in section
    summary = (directory / "summary.txt").read_text()
    for g in (0, 1):
        line = next(x for x in summary.splitlines() if x.startswith(f"  GPU {g}"))
        assert "round trip" in line and "write" in line and "GB/s" in line and "clock precision" in line
    assert printed_summary(directory) in done.stdout  # wrapped to 99 columns; the file keeps one line an item
    assert all(len(x) < 100 for x in done.stdout.splitlines() if not x.startswith(("[", "run directory")))


BANDWIDTHS = ("write_gbs", "read_gbs", "copy_d2h_gbs", "copy_h2d_gbs")


def test_the_gpus_rounds_visit_every_device_in_shuffled_rounds(two_gpus):
    directory, _ = two_gpus
    manifest = json.loads((directory / "characterize.json").read_text())
    launches = [s for s in manifest["steps"] if s["probe"] == "gpus"]
    assert [s["file"] for s in launches[:2]] == ["gpus.jsonl", "gpus.launch2.jsonl"]  # --quick: 2 launches
    seeds = set()
    for step in launches:
        header, *records = jsonl_records(directory / step["file"])
        seeds.add(header["config"]["seed"])
        visits = [r for r in records if r["record"] == "gpu_round"]
        assert len(visits) == header["config"]["rounds"] * 2 and records[-1]["record"] == "gpus_verdict"
        for r in range(header["config"]["rounds"]):
            assert sorted(v["gpu"] for v in visits if v["round"] == r) == [0, 1]
    assert len(seeds) == len(launches)  # each launch draws its own order, and records it
    verdict = manifest["verdict"]
    assert verdict["gpus"] == 2 and verdict["launches"] == 2 and verdict["reference"] == "the other GPU"
    for g in verdict["per_gpu"]:
        launch = g["metrics"]["launch_sync_ns"]  # the host backend launches no kernels
        assert launch["value"]["n"] == 0 and launch["state"] == "not measured"
        assert g["metrics"]["write_gbs"]["value"]["n"] == 12 and g["metrics"]["write_gbs"]["ratio"]["ci95"]
    table = hetprobe.per_gpu(directory)
    for entry in verdict["per_gpu"]:  # the table's compared numbers are the verdict's medians (C++)
        row = table[table["GPU"] == entry["gpu"]].iloc[0]
        assert math.isclose(row["write (GB/s)"], entry["metrics"]["write_gbs"]["value"]["median"])


def test_the_slowed_device_is_flagged_and_confirmed(three_gpus_one_slow):
    """HETPROBE_HOST_SLOW=2:16 makes device 2 sixteen times slower, in every launch: its bandwidths' ratios
    to the node lie wholly below 90%, characterize re-measures it in one more launch, which confirms it.
    The host backend's round trips on 2 busy CPUs swing with the scheduler, so they are not asserted."""
    directory, done = three_gpus_one_slow
    manifest = json.loads((directory / "characterize.json").read_text())
    remeasure = [s for s in manifest["steps"] if s["probe"] == "gpus" and "--phase remeasure" in s["command"]]
    assert len(remeasure) == 1 and remeasure[0]["file"] == "gpus.launch3.jsonl", manifest["steps"]
    counted = {(a["gpu"], a["metric"]): a for a in manifest["anomalies"]}
    for metric in BANDWIDTHS:
        a = counted[(2, metric)]
        assert a["status"] == "confirmed" and a["reference_kind"] == "node median" and a["deviation"] < -0.5, a
        assert a["ratio"]["ci95"][1] < 0.9 and a["remeasure_ratio"]["ci95"][1] < 0.9
    assert {g for g, _ in counted} == {2}, counted  # the others are not off
    assert "FLAGGED (confirmed on re-measure): GPU 2: write kernel into pinned memory" in done.stdout
    md = (directory / "report.md").read_text()
    assert "FLAGGED (confirmed on re-measure): GPU 2: write kernel into pinned memory" in md and " ⚑ |" in md


def test_a_device_slowed_in_one_launch_is_not_flagged(tmp_path):
    """Three launches of the gpus probe, device 1 slowed 16 times in the first alone (a transient of one
    process): over the launches its interval is wide, so the verdict makes no claim on it."""
    env = dict(launch_env(), HETPROBE_HOST_DEVICES="2", HETPROBE_HOST_CPU_NAME=SIMULATED_CPU)
    quick = ["--size", "4MiB", "--exchanges", "100", "--rounds", "6", "--reps", "2", "--quiet", "--device", "host"]
    for k in (1, 2, 3):
        slow = {"HETPROBE_HOST_SLOW": "1:16"} if k == 1 else {}
        done = subprocess.run(
            [*launch_command(2), binary(), "gpus", "--out", str(tmp_path / f"gpus.launch{k}.jsonl"), *quick],
            env=dict(env, **slow),
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
    one = verdict.node_verdict(tmp_path)
    assert one["launches"] == 3
    assert [f for f in one["flags"] if f["metric"] in BANDWIDTHS and f["gpu"] == 1] == [], one["flags"]
    # The first launch alone flags it (its own verdict record): the launches are what keep it unclaimed.
    alone = jsonl_records(tmp_path / "gpus.launch1.jsonl")[-1]["verdict"]
    assert {f["metric"] for f in alone["flags"] if f["gpu"] == 1} >= set(BANDWIDTHS), alone["flags"]
    assert all(f["status"] == "unconfirmed" for f in alone["flags"])


# --- per_gpu from records: the link record, and files from before it ---------------------------------


def link_record(rank, **fields):
    record = {
        "record": "link",
        "probe": "bandwidth",
        "rank": rank,
        "pci_bus_id": f"0000:0{rank}:00.0",
        "read_while": "write load at full rate",
        "current_speed_gts": 16.0,
        "max_speed_gts": 16.0,
        "current_generation": 4,
        "max_generation": 4,
        "current_width": 16,
        "max_width": 16,
        "below_max": False,
        "sysfs": f"/sys/bus/pci/devices/0000:0{rank}:00.0",
        "status": "ok",
    }
    record.update(fields)
    return record


def test_the_link_record_ok_skipped_and_absent(two_gpus, tmp_path):
    directory, _ = two_gpus
    copy = copy_run(directory, tmp_path)
    records = [r for r in jsonl_records(copy / "bandwidth.jsonl") if r.get("record") != "link"]
    skipped = link_record(1, status="skipped", skipped_reason="the host backend has no PCIe link")
    for k in ("current_speed_gts", "max_speed_gts", "current_width", "max_width", "below_max"):
        skipped[k] = None
    write_jsonl(copy / "bandwidth.jsonl", records + [link_record(0, current_width=8, below_max=True), skipped])
    t = hetprobe.per_gpu(copy)
    assert t.loc[0, "link width (lanes)"] == 8 and t.loc[0, "link max width (lanes)"] == 16
    assert t.loc[0, "link read"] == "while write load at full rate"
    assert t.loc[1, "link read"] == "not read: the host backend has no PCIe link"
    assert np.isnan(t.loc[1, "link speed (GT/s)"])
    links = [f for f in verdict.node_verdict(copy)["flags"] if f["status"] == "link"]
    assert [(f["gpu"], f["metric"], f["value"], f["reference"]) for f in links] == [(0, "link_width", 8, 16)]
    assert links[0]["why"] == "PCIe link width x8, below its maximum x16 (read during a write load at full rate)"
    shown = display_table(t, links)
    assert list(shown["link (GT/s, lanes: now of max)"])[0] == "16 GT/s x8 of 16 GT/s x16 ⚑"
    lines = summary_lines(t, {"flags": links}, links)
    assert "⚠ FLAGGED (link): GPU 0: PCIe link width x8, below its maximum x16" in "\n".join(lines)
    write_jsonl(copy / "bandwidth.jsonl", records)  # a file from before the link record
    assert list(hetprobe.per_gpu(copy)["link read"]) == ["unknown (no link record)"] * 2


def test_an_older_single_gpu_run_has_one_row():
    t = hetprobe.per_gpu(RUNS / "h200x2-characterize")
    assert len(t) == 1 and t.loc[0, "device"] == "NVIDIA H200" and t.loc[0, "PCI address"] == "0000:00:06.0"
    assert t.loc[0, "NUMA node"] == "0" and t.loc[0, "link read"].startswith("idle read (hwloc): 63.02 GB/s")
    assert math.isclose(t.loc[0, "round trip (ns)"], 2236.189734534642)
    assert math.isclose(t.loc[0, "launch+sync (ns)"], 7758.092665, rel_tol=1e-6)
    assert math.isclose(t.loc[0, "clock drift (ppm)"], -11.757942, rel_tol=1e-6)
    assert np.isnan(t.loc[0, "write (GB/s)"])  # no bandwidth step then
    assert t.attrs["verdict"] is None  # no gpus rounds then: nothing for the verdict to compare
    assert math.isclose(hetprobe.per_gpu(RUNS / "h200-bandwidth.jsonl").loc[0, "write (GB/s)"], 52.29040029881784)


# --- --tolerance ----------------------------------------------------------------------------------


@pytest.mark.parametrize("text, value", [("10%", 0.1), ("0.1", 0.1), (0.25, 0.25), ("99.5%", 0.995)])
def test_tolerance_as_a_percent_or_a_fraction(text, value):
    assert math.isclose(verdict.parse_tolerance(text), value)


@pytest.mark.parametrize("text", ["10", "1", "0", "0%", "-5%", "100%", "abc", "nan", "", "inf", "5%%", True])
def test_a_bad_tolerance_is_refused(text):
    with pytest.raises(UsageError, match="--tolerance"):
        verdict.parse_tolerance(text)


def test_characterize_refuses_a_bad_tolerance_before_writing(tmp_path):
    for bad in ("10", "0", "-5%", "100%", "x"):
        done = hetprobe_cli("characterize", "--device", "host", f"--tolerance={bad}", str(tmp_path / "run"))
        assert done.returncode == 2 and f"--tolerance '{bad}': expected a fraction" in done.stderr, done.stderr
        assert not (tmp_path / "run").exists()


# --- the baseline: hetprobe check and characterize --baseline ---------------------------------------


def scale_gpu(directory, gpu: int, metric: str, factor: float) -> None:
    """Multiplies `metric` of `gpu` in every gpus round of a run directory (every launch)."""
    for path in directory.glob("gpus*.jsonl"):

        def edit(r):
            if r.get("record") == "gpu_round" and r["gpu"] == gpu and r["metrics"][metric] is not None:
                r["metrics"][metric] *= factor

        edit_records(path, edit)


def test_check_against_a_similar_run_exits_0(two_gpus, tmp_path):
    directory, _ = two_gpus
    same = copy_run(directory, tmp_path)
    done = hetprobe_cli("check", str(directory), "--baseline", str(same))
    assert done.returncode == 0, done.stderr
    assert f"every number within 10% of the baselines' worst (1 run(s), 2 launches: {same})" in done.stdout
    scale_gpu(same, 1, "read_gbs", 0.95)
    assert hetprobe_cli("check", str(same), "--baseline", str(directory)).returncode == 0  # within 10%


def test_check_lists_the_metric_outside_tolerance_and_exits_1(two_gpus, tmp_path):
    directory, _ = two_gpus
    worse = copy_run(directory, tmp_path)
    scale_gpu(worse, 1, "write_gbs", 0.25)
    done = hetprobe_cli("check", str(worse), "--baseline", str(directory), "--tolerance", "0.2")
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"{worse}: 1 number(s) outside 20% of the baselines' worst (1 run(s), 2 launches: {directory}):"
    assert lines[1].startswith("  GPU 1: write kernel into pinned memory ") and "below the baselines' worst" in lines[1]
    checked = hetprobe.check(worse, directory, 0.2)  # a frame: one row per GPU and number compared
    outside = checked[checked["status"] == "outside"]
    assert list(zip(outside["GPU"], outside["metric"])) == [(1, "write_gbs")]
    assert outside["median"].iloc[0] < outside["baseline worst"].iloc[0] * 0.8 and lines[1].endswith(
        outside["why"].iloc[0]
    )
    assert [a["reference_kind"] for a in checked.attrs["verdict"]["outside"]] == ["baseline"]
    # The other way round the slowed GPU is the baseline, and better is never outside.
    assert hetprobe_cli("check", str(directory), "--baseline", str(worse)).returncode == 0


def test_check_refuses_what_it_cannot_compare(two_gpus, host_run, tmp_path):
    directory, _ = two_gpus
    (tmp_path / "empty").mkdir()
    (tmp_path / "file.txt").write_text("x")
    (tmp_path / "interference-only").mkdir()
    shutil.copy(host_run[0] / "interference.jsonl", tmp_path / "interference-only")
    (tmp_path / "one-launch").mkdir()
    shutil.copy(directory / "gpus.jsonl", tmp_path / "one-launch")
    renamed = copy_run(directory, tmp_path, "renamed")
    for path in renamed.glob("gpus*.jsonl"):

        def rename(r):
            if r.get("record") == "header":
                r["ranks"][1]["device"]["name"] = "Other GPU"

        edit_records(path, rename)
    cases = [
        (tmp_path / "missing", "--baseline {}: no such run directory"),
        (tmp_path / "empty", "--baseline {} is not a run directory: it holds no results (*.jsonl, *.jsonl.gz)"),
        (tmp_path / "file.txt", "--baseline {} is a regular file: give a run directory"),
        (tmp_path / "interference-only", "--baseline {} has no gpus rounds"),
        (host_run[0], "the baseline {} has 1 GPU(s) and the run " + f"{directory} 2: compare nodes of the same GPUs"),
        (renamed, "measured different GPUs (GPU 1 is"),
        (tmp_path / "one-launch", "the baseline has 1 launch of the gpus step in all"),
    ]
    for baseline, message in cases:
        done = hetprobe_cli("check", str(directory), "--baseline", str(baseline))
        assert done.returncode == 2 and message.format(baseline) in done.stderr, (baseline, done.stderr)
        assert done.stdout == ""
    done = hetprobe_cli("check", str(tmp_path / "missing"), "--baseline", str(directory))
    assert done.returncode == 2 and "RUN_DIR" in done.stderr
    # Baselines of different nodes (GPU counts) are refused.
    done = hetprobe_cli("check", str(directory), "--baseline", str(directory), str(host_run[0]))
    assert done.returncode == 2 and "are not runs of one node (2 GPU(s) and 1)" in done.stderr, done.stderr
    for bad in ("0", "100%", "-1%", "ten"):
        done = hetprobe_cli("check", str(directory), "--baseline", str(directory), "--tolerance", bad)
        assert done.returncode == 2 and "--tolerance" in done.stderr and done.stdout == ""


def test_characterize_checks_the_baseline_before_measuring(two_gpus, tmp_path):
    directory, _ = two_gpus
    run = tmp_path / "run"
    env = dict(os.environ, HETPROBE_HOST_DEVICES="3")
    done = hetprobe_cli("characterize", "--device", "host", "--baseline", str(directory), str(run), env=env)
    assert done.returncode == 2, done.stderr
    assert "the baseline has 2 GPU(s) and this node 3: compare nodes of the same GPUs" in done.stderr
    assert not run.exists()
    done = hetprobe_cli("characterize", "--device", "host", "--baseline", str(tmp_path / "nowhere"), str(run))
    assert done.returncode == 2 and "no such run directory" in done.stderr and not run.exists()
    done = hetprobe_cli("characterize", "--skip", "gpus", "--baseline", str(directory), str(run), env=env)
    assert done.returncode == 2 and "do not skip it" in done.stderr and not run.exists()


def test_a_slowed_device_is_outside_the_baseline(two_gpus, tmp_path):
    """The same 2 devices, device 1 made 4 times slower (HETPROBE_HOST_SLOW): exit 1, device 1's bandwidths
    outside the baseline. The slowed device's name says so; the check compares the model without that mark."""
    directory, _ = two_gpus
    for attempt in (1, 2):
        run = tmp_path / f"run-{attempt}"
        done = characterize(
            run, 2, "--skip", "clock,interference", "--baseline", str(directory), env={"HETPROBE_HOST_SLOW": "1:4"}
        )
        assert done.returncode == 1, done.stdout + done.stderr
        manifest = json.loads((run / "characterize.json").read_text())
        outside = {(a["gpu"], a["metric"]) for a in manifest["anomalies"] if a["reference_kind"] == "baseline"}
        if {g for g, _ in outside} == {1}:
            break
        # The host devices share this machine's CPUs and memory with CI's parallel build: where its load
        # moved between the module's baseline and this run, device 0 can fall outside too. Once, the
        # baseline is measured again just before the run; a device 0 outside it then is a false flag.
        directory = tmp_path / "baseline"
        assert characterize(directory, 2, "--skip", "interference").returncode == 0
    assert {(1, metric) for metric in BANDWIDTHS} <= outside, manifest["anomalies"]
    assert {g for g, _ in outside} == {1}, manifest["anomalies"]
    assert manifest["baseline"]["within_tolerance"] is False and manifest["baseline"]["baseline_launches"] == 2
    assert "OUTSIDE TOLERANCE: GPU 1: write kernel into pinned memory" in done.stdout
    assert "Against the baseline" in (run / "report.md").read_text()


def test_ranks_that_share_a_device_are_refused_unless_asked_and_never_compared(tmp_path):
    """Issue 54: two ranks on one host device once compared it with itself as "the other GPU". Refused on
    every rank, nothing written; with --share-devices measured, and the verdict judges no ratio."""
    env = dict(launch_env(), HETPROBE_HOST_DEVICES="1")
    small = ["gpus", "--device", "host", "--size", "1MiB", "--exchanges", "20", "--rounds", "2", "--quiet"]
    out = tmp_path / "gpus.jsonl"
    refused = subprocess.run(
        launch_command(2) + [binary(), *small, "--out", str(out)], capture_output=True, text=True, env=env, timeout=300
    )
    assert refused.returncode == 2 and "ranks 0 and 1 would measure one device" in refused.stderr, refused.stderr
    assert not out.exists()
    shared = subprocess.run(
        launch_command(2) + [binary(), *small, "--share-devices", "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert shared.returncode == 0, shared.stderr
    verdict = next(r for r in hetprobe.load(out).records if r.get("record") == "gpus_verdict")["verdict"]
    assert any("measured one device" in note for note in verdict["notes"]) and verdict["flags"] == []
    states = {m["state"] for g in verdict["per_gpu"] for m in g["metrics"].values()}
    assert states <= {"not compared", "not measured"} and "not compared" in states
