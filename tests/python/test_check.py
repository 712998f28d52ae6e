"""The baseline check's noise (issue 24): several baseline runs give a range, one baseline widens the
tolerance by the metric's launch-to-launch spread (or the spread its own records measured), a real fault
still fails, and baselines of different nodes are bad input. On synthetic tables and on the committed
h200x2-nodecheck runs (run-c: GPU 1's link carried another process's copies)."""

from __future__ import annotations

import math
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import jsonl_records, write_jsonl

import hetprobe
from hetprobe.data.jsonl import is_results_file, results_stem
from hetprobe.errors import UsageError
from hetprobe.node import flags, gpus

NODECHECK = "h200x2-nodecheck"
SPREAD = flags.LAUNCH_SPREAD


def table_of(**columns) -> pd.DataFrame:
    """A per_gpu table with the given metric columns (by key), every other number NaN."""
    count = len(next(iter(columns.values())))
    rows = []
    for g in range(count):
        row = {c: np.nan for c in gpus.COLUMNS}
        row.update({"GPU": g, "device": "X", "ordinal": g, "PCI address": None, "NUMA node": "0"})
        row.update({gpus._COLUMN[key]: values[g] for key, values in columns.items()})
        rows.append(row)
    return pd.DataFrame(rows, columns=gpus.COLUMNS)


def flagged(found) -> list[tuple]:
    return [(a["gpu"], a["metric"]) for a in found]


def hetprobe_check(*args: str):
    return subprocess.run(
        [sys.executable, "-m", "hetprobe", "check", *map(str, args)], capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def nodecheck(data):
    return data / NODECHECK


def copy_run(source, target, edit=None):
    """The results files of a run directory, copied as plain JSON Lines (edit(record) applied to each
    record when given)."""
    target.mkdir()
    for f in source.iterdir():
        if is_results_file(f):
            records = jsonl_records(f)
            for r in records:
                if edit:
                    edit(r)
            write_jsonl(target / f"{results_stem(f)}.jsonl", records)
        elif f.name in ("topology.json", "characterize.json"):
            shutil.copyfile(f, target / f.name)
    return target


# --- several baselines: their range ----------------------------------------------------------------


def test_several_baselines_flag_only_outside_their_range_by_the_tolerance():
    bases = [
        table_of(clock_precision_ns=[850.0, 1000.0], write_gbs=[52.0, 50.0]),
        table_of(clock_precision_ns=[870.0, 1000.0], write_gbs=[50.0, 50.0]),
    ]
    # GPU 0: 960 ns is 10.3% above the worse baseline's 870 ns; 44 GB/s 12% below the worse 50 GB/s.
    # GPU 1: 1090 ns is 9% above, 46 GB/s 8% below: inside the range widened by 10%.
    run = table_of(clock_precision_ns=[960.0, 1090.0], write_gbs=[44.0, 46.0])
    found = flags.baseline_anomalies(run, bases, 0.1)
    assert flagged(found) == [(0, "write_gbs"), (0, "clock_precision_ns")]
    write, clock = found
    assert clock["reference"] == 870.0 and clock["tolerance"] == 0.1 and clock["reference_kind"] == "baseline"
    assert math.isclose(clock["deviation"], 960 / 870 - 1)
    assert clock["why"] == "clock sync precision 960 ns is 10.3% above the baselines' 850-870 ns (tolerance 10%)"
    assert write["reference"] == 50.0 and write["why"] == (
        "write kernel into pinned memory 44 GB/s is 12% below the baselines' 50-52 GB/s (tolerance 10%)"
    )
    # Inside the range, or better than it, is never outside.
    assert flags.baseline_anomalies(table_of(clock_precision_ns=[860.0, 500.0], write_gbs=[51.0, 90.0]), bases) == []
    # One of these baselines alone widens the tolerance by the launch spread instead: GPU 0 passes.
    assert flags.baseline_anomalies(run.iloc[:1], bases[1].iloc[:1], 0.1) == []


def test_a_metric_one_baseline_lacks_is_held_to_the_others():
    bases = [table_of(roundtrip_ns=[2000.0]), table_of(roundtrip_ns=[np.nan])]
    found = flags.baseline_anomalies(table_of(roundtrip_ns=[2300.0]), bases, 0.1)
    assert found[0]["why"] == "CPU→GPU→CPU flag round trip 2300 ns is 15% above the baselines' 2000 ns (tolerance 10%)"
    lost = flags.baseline_anomalies(table_of(roundtrip_ns=[np.nan]), bases, 0.1)
    assert lost[0]["value"] is None and lost[0]["why"] == (
        "CPU→GPU→CPU flag round trip: no value in this run (the baselines': 2000 ns)"
    )


# --- one baseline: the tolerance widened by the metric's launch spread -------------------------------


def test_one_baseline_widens_the_tolerance_by_the_launch_spread():
    """Issue 24: 960 ns against a single baseline's 864 ns (+11%) is launch-to-launch noise."""
    assert SPREAD["clock_precision_ns"] >= 0.11
    assert set(SPREAD) == {m.key for m in gpus.METRICS + gpus.LINK_METRICS if m.worse}
    base = table_of(clock_precision_ns=[864.0], roundtrip_ns=[2200.0])
    assert flags.baseline_anomalies(table_of(clock_precision_ns=[960.0], roundtrip_ns=[2500.0]), base, 0.1) == []
    allowed = 0.1 + SPREAD["clock_precision_ns"]
    worse = 864.0 * (1 + allowed) * 1.01
    found = flags.baseline_anomalies(table_of(clock_precision_ns=[worse], roundtrip_ns=[2200.0]), base, 0.1)
    assert flagged(found) == [(0, "clock_precision_ns")]
    assert math.isclose(found[0]["tolerance"], allowed) and found[0]["reference"] == 864.0
    spread = flags.tolerance_text(SPREAD["clock_precision_ns"])
    assert found[0]["why"] == (
        f"clock sync precision {flags._num(worse)} ns is {found[0]['deviation'] * 100:.0f}% above the baseline's "
        f"864 ns (tolerance 10% + launch spread {spread})"
    )


def test_a_larger_spread_measured_by_the_baseline_widens_further_a_smaller_one_never_narrows():
    base = table_of(write_gbs=[50.0], clock_precision_ns=[864.0])
    base.attrs["measured_spread"] = {
        0: {"write_gbs": (0.3, "5 repetitions"), "clock_precision_ns": (0.01, "6 clock batches")}
    }
    assert flags.baseline_anomalies(table_of(write_gbs=[33.0], clock_precision_ns=[960.0]), base, 0.1) == []  # -34%
    found = flags.baseline_anomalies(table_of(write_gbs=[27.0], clock_precision_ns=[960.0]), base, 0.1)  # -46%
    assert flagged(found) == [(0, "write_gbs")] and math.isclose(found[0]["tolerance"], 0.4)
    assert found[0]["why"].endswith("(tolerance 10% + spread 30% of the baseline's 5 repetitions)")


def test_a_link_has_no_launch_spread():
    base = table_of(link_speed_gts=[32.0], link_width=[16.0])
    found = flags.baseline_anomalies(table_of(link_speed_gts=[32.0], link_width=[8.0]), base, 0.1)
    assert flagged(found) == [(0, "link_width")]
    assert found[0]["why"] == "PCIe link width 8 lanes is 50% below the baseline's 16 lanes (tolerance 10%)"


def test_the_spread_a_run_measured_itself(nodecheck):
    """run-a's repetitions and clock batches: GPU 0's six batches' precision 1296-1312 ns."""
    spread = hetprobe.per_gpu(nodecheck / "run-a").attrs["measured_spread"]
    assert sorted(spread) == [0, 1]
    precision, what = spread[0]["clock_precision_ns"]
    assert what == "6 clock batches" and math.isclose(precision, 16 / 1296, rel_tol=1e-3)
    records = jsonl_records(nodecheck / "run-a" / "bandwidth.jsonl")
    gbs = next(r["gbs"] for r in records if r.get("rank") == 1 and r.get("writer") == "plain one-pass kernel")
    assert spread[1]["write_gbs"] == pytest.approx(((max(gbs) - min(gbs)) / np.median(gbs), "5 repetitions"))


# --- the committed runs: noise passes, the disturbed GPU fails ---------------------------------------


def test_the_committed_runs_of_one_node(nodecheck):
    a, b, c = (nodecheck / f"run-{x}" for x in "abc")
    assert hetprobe.check(b, a).outside == []
    # Before the spread, run-a against run-b cried wolf: GPU 1's round trip 2498 ns, 13% above 2202 ns.
    assert hetprobe.check(a, b).outside == []
    disturbed = [(1, "read_gbs"), (1, "copy_d2h_gbs"), (1, "copy_h2d_gbs")]
    assert flagged(hetprobe.check(c, a).outside) == disturbed
    both = hetprobe.check(c, [a, b])
    # Against the range of two runs, GPU 0's launch+sync (9528 ns while another process shared the CPUs,
    # 17% above the range's 8149 ns) is held to the tolerance alone.
    assert flagged(both.outside) == [(0, "launch_sync_ns")] + disturbed
    assert len(both.baselines) == 2 and both.compared == 18
    assert len(hetprobe.check(c, [a, a]).baselines) == 1  # a directory named twice is one run


def test_clock_precision_11_percent_worse_than_one_baseline_passes_a_fault_fails(nodecheck, tmp_path):
    def precision_times(factor):
        def edit(r):
            if r.get("record") == "clock_fit" and r.get("rank") == 0:
                r["precision_ns"] *= factor

        return edit

    base = nodecheck / "run-a"
    noisy = copy_run(base, tmp_path / "noisy", precision_times(1.11))
    assert hetprobe_check(noisy, "--baseline", base).returncode == 0
    broken = copy_run(base, tmp_path / "broken", precision_times(1.5))
    done = hetprobe_check(broken, "--baseline", base)
    assert done.returncode == 1, done.stdout + done.stderr
    assert (
        "GPU 0 (0000:00:06.0): clock sync precision 1944 ns is 50% above the baseline's 1296 ns (tolerance 10% + "
        in (done.stdout)
    )


# --- baselines of different nodes: bad input ---------------------------------------------------------


def other_host(r):
    if r.get("record") == "header":
        r["host"] = "node7"
        for entry in r.get("ranks") or []:
            entry["host"] = "node7"


def other_model(r):
    if r.get("record") == "header" and r.get("ranks"):
        r["ranks"][1]["device"]["name"] = "NVIDIA H100 80GB HBM3"


def test_baselines_of_different_nodes_are_refused(nodecheck, tmp_path):
    a, b = nodecheck / "run-a", nodecheck / "run-b"
    elsewhere = copy_run(b, tmp_path / "elsewhere", other_host)
    h100 = copy_run(b, tmp_path / "h100", other_model)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    for baseline, why in ((elsewhere, "host vm and host node7"), (h100, "GPU 1 is 'NVIDIA H200' and 'NVIDIA H100")):
        done = hetprobe_check(b, "--baseline", a, baseline)
        assert done.returncode == 2 and done.stdout == "", done.stdout + done.stderr
        assert f"--baseline {a} and {baseline} are not runs of one node ({why}" in done.stderr, done.stderr
        with pytest.raises(UsageError, match="not runs of one node"):
            hetprobe.check(b, [a, baseline])
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing written
    # The run checked may be another node's: that is what a baseline is for.
    assert hetprobe_check(elsewhere, "--baseline", a).returncode == 0
    with pytest.raises(UsageError, match="GPU 1 is 'NVIDIA H100 80GB HBM3' in this run and 'NVIDIA H200'"):
        hetprobe.check(h100, a)


# --- the command's exit codes --------------------------------------------------------------------------


def test_the_exit_codes(nodecheck, tmp_path):
    a, b, c = (nodecheck / f"run-{x}" for x in "abc")
    done = hetprobe_check(b, "--baseline", a)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        f"{b}: every number of its 2 GPU(s) within 10% + each metric's launch spread of the baseline {a} "
        "(18 compared)\n"
    )
    done = hetprobe_check(c, "--baseline", a, "--baseline", b)  # the option given twice: one list
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"{c}: 4 number(s) outside 10% of the range of the baselines {a}, {b}:"
    assert lines[1] == (
        "  GPU 0 (0000:00:06.0): kernel launch + device synchronise 9528 ns is 17% above the baselines' "
        "8000-8149 ns (tolerance 10%)"
    )
    assert lines[4].startswith("  GPU 1 (0000:00:07.0): async copy host→device 11.11 GB/s is 80% below")
    assert hetprobe_check(c, "--baseline", a, b).returncode == 1
    assert hetprobe_check(c, "--baseline", a, b, "--tolerance", "25%").stdout.startswith(f"{c}: 2 number(s)")
    for args in (
        [tmp_path / "missing", "--baseline", a],
        [c, "--baseline", a, tmp_path / "missing"],
        [c, "--baseline"],
        [c, "--baseline", a, "--tolerance", "10"],
    ):
        done = hetprobe_check(*args)
        assert done.returncode == 2 and done.stdout == "", (args, done.stdout, done.stderr)
