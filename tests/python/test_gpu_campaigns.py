"""The GPU campaigns' expectations, here without a GPU: tests/gpu/common.sh's `expect`, `expect_files`, `need`
and `finish` in stand-in campaigns of ordinary commands, the driver tests/gpu/campaigns.sh over stand-in
campaigns, shellcheck over the scripts, and the checks the campaigns judge by (tests/gpu/checks.py,
compare_rounds.py, compare_medians.py) on committed results of real GPU runs or small files made here."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA, REPO

GPU = REPO / "tests" / "gpu"


def campaign(tmp_path: Path, name: str, body: str) -> Path:
    """A stand-in campaign: a script that sources common.sh as the real ones do, then BODY."""
    script = tmp_path / f"{name}.sh"
    script.write_text(f"set -euo pipefail\nsource {GPU / 'common.sh'}\n{body}\n")
    return script


def run(tmp_path: Path, *command: str | Path, results: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("RESULTS_DIR", "BUILD_DIR", "campaign")}
    env.update(BUILD_DIR=str(tmp_path / "build"), RESULTS_DIR=str(results or tmp_path / "results"))
    return subprocess.run(["bash", *map(str, command)], capture_output=True, text=True, env=env, timeout=120)


def last_line(done: subprocess.CompletedProcess) -> str:
    return done.stdout.rstrip("\n").splitlines()[-1]


def test_a_campaign_fails_and_its_summary_names_each_unmet_expectation(tmp_path):
    script = campaign(
        tmp_path,
        "standin",
        """
expect exits-0 0 -- true
expect exits-1-as-expected 1 -- false
expect unmet 0 --log "$results/unmet.log" -- sh -c 'echo why it failed; exit 3'
echo written >"$results/present.txt"
expect_files "$results/present.txt" "$results/missing.txt"
expect piped 0 -- false | cat
finish
""",
    )
    done = run(tmp_path, script)
    assert done.returncode == 1, done.stdout + done.stderr
    assert last_line(done) == (
        "standin: FAILED 3 of 6: unmet: exit 3, expected 0; missing.txt: missing or empty; piped: exit 1, expected 0"
    )
    assert "why it failed" in done.stdout, "the failed step's log is not shown"
    assert (tmp_path / "results" / "expectations.txt").read_text().splitlines() == [
        "met exits-0: exit 0",
        "met exits-1-as-expected: exit 1",
        "FAILED unmet: exit 3, expected 0",
        "met present.txt: written",
        "FAILED missing.txt: missing or empty",
        "FAILED piped: exit 1, expected 0",
    ]


def test_a_campaign_whose_expectations_hold_exits_0(tmp_path):
    script = campaign(
        tmp_path,
        "standin",
        """
expect exits-0 0 -- true
expect interrupted 130 -- sh -c 'exit 130'
expect "within a second" 0 -- below 0.25 1
echo x >"$results/out.jsonl"
expect_files "$results/out.jsonl"
finish
""",
    )
    done = run(tmp_path, script)
    assert done.returncode == 0, done.stdout + done.stderr
    assert last_line(done).startswith("standin: all 4 expectations met")


def test_a_bound_that_is_not_met_fails(tmp_path):
    done = run(tmp_path, campaign(tmp_path, "standin", 'expect "within a second" 0 -- below 1.4 1\nfinish'))
    assert done.returncode == 1
    assert last_line(done) == "standin: FAILED 1 of 1: within a second: exit 1, expected 0"


def test_need_ends_the_campaign_at_the_first_failure(tmp_path):
    script = campaign(
        tmp_path,
        "standin",
        """
expect before 0 -- true
need build 0 -- sh -c 'exit 5'
touch "$results/went-on"
finish
""",
    )
    done = run(tmp_path, script)
    assert done.returncode == 1
    assert last_line(done) == "standin: FAILED 1 of 2: build: exit 5, expected 0"
    assert not (tmp_path / "results" / "went-on").exists()


def test_a_campaign_that_stops_early_says_where(tmp_path):
    done = run(
        tmp_path, campaign(tmp_path, "standin", "expect before 0 -- true\nfalse\nexpect after 0 -- true\nfinish")
    )
    assert done.returncode == 1
    assert last_line(done) == "standin: FAILED 1 of 2: standin: stopped early, exit 1 at `false`"


def test_a_campaign_that_checks_nothing_fails(tmp_path):
    done = run(tmp_path, campaign(tmp_path, "standin", "true\nfinish"))
    assert done.returncode == 1
    assert last_line(done) == "standin: FAILED 1 of 1: no expectation was checked"


def test_the_driver_fails_when_a_campaign_does_and_repeats_its_summary(tmp_path):
    good = campaign(tmp_path, "good", "expect ok 0 -- true\nfinish")
    bad = campaign(tmp_path, "bad", 'expect run-c 1 -- true\nexpect_files "$results/run-c/summary.txt"\nfinish')
    done = run(tmp_path, GPU / "campaigns.sh", good, bad)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.rstrip("\n").splitlines()
    assert lines[-1] == "campaigns: FAILED 1 of 2: bad: exit 1, expected 0"
    assert lines[-2] == "bad: FAILED 2 of 2: run-c: exit 0, expected 1; run-c/summary.txt: missing or empty"
    assert lines[-3].startswith("good: all 1 expectations met")
    results = tmp_path / "results"
    assert (results / "bad.log").read_text().rstrip("\n").splitlines()[-1] == lines[-2]
    assert (results / "good" / "expectations.txt").read_text() == "met ok: exit 0\n"

    done = run(tmp_path, GPU / "campaigns.sh", good, good)
    assert done.returncode == 0, done.stdout + done.stderr
    assert last_line(done).startswith("campaigns: all 2 expectations met")


def test_the_driver_refuses_an_unknown_campaign_and_runs_nothing(tmp_path):
    good = campaign(tmp_path, "good", 'touch "$results/ran"\nexpect ok 0 -- true\nfinish')
    done = run(tmp_path, GPU / "campaigns.sh", good, "no_such_campaign")
    assert done.returncode == 2
    assert "no campaign no_such_campaign" in done.stderr
    assert not (tmp_path / "results" / "good" / "ran").exists()


def campaign_scripts() -> list[str]:
    return sorted(p.name for p in GPU.glob("*.sh") if p.name not in ("common.sh", "campaigns.sh"))


def test_every_campaign_ends_with_finish_and_is_listed():
    """Each campaign sources common.sh and ends with `finish` (its exit trap would too; the reader sees where the
    verdict comes from), the driver knows it and docs/testing.md's table says what it expects."""
    known = re.search(r"^known=\((.*)\)$", (GPU / "campaigns.sh").read_text(), re.M).group(1).split()
    assert sorted(f"{n}.sh" for n in known) == [s for s in campaign_scripts() if s != "compare_builds.sh"]
    table = (REPO / "docs" / "testing.md").read_text()
    for script in campaign_scripts() + ["campaigns.sh"]:
        text = (GPU / script).read_text()
        assert f"| `{script}` |" in table, f"{script} is not in docs/testing.md's table"
        if script != "campaigns.sh":
            assert 'source "$(dirname "$0")/common.sh"' in text
            assert text.rstrip().endswith("finish"), f"{script} does not end with finish"


@pytest.mark.skipif(
    shutil.which("shellcheck") is None, reason="shellcheck is not installed (apt-get install shellcheck)"
)
def test_the_gpu_scripts_pass_shellcheck():
    done = subprocess.run(
        ["shellcheck", *sorted(str(p) for p in GPU.glob("*.sh"))], capture_output=True, text=True, cwd=GPU
    )
    assert done.returncode == 0, done.stdout + done.stderr


# --- the checks the campaigns judge by -------------------------------------------------------------------------


def python(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, timeout=60)


def test_rounds_holds_hetprobe_to_the_bare_program_on_the_committed_h100_launches():
    """notebooks/data/h100-rounds: within 5% at 11 of 12 points, the 16 MiB write beyond (interference.md)."""
    done = python(GPU / "compare_rounds.py", DATA / "h100-rounds", 3)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "within 5% at 11 of 12 points" in done.stdout
    assert "beyond: 16 MiB write 1.102" in done.stdout
    strict = python(GPU / "compare_rounds.py", DATA / "h100-rounds", 3, "--max-outside", "0")
    assert strict.returncode == 1


def test_rounds_fails_when_a_launch_lacks_a_point(tmp_path):
    for name in ["bare-cpu-1.txt", "interference-1.jsonl.gz"]:
        shutil.copy(DATA / "h100-rounds" / name, tmp_path / name)
    bare = tmp_path / "bare-cpu-1.txt"
    bare.write_text("".join(line for line in bare.read_text().splitlines(True) if not line.startswith("1024 poll")))
    done = python(GPU / "compare_rounds.py", tmp_path, 1)
    assert done.returncode == 1
    assert "missing: 1 KiB poll" in done.stdout


def test_nodecheck_sees_the_disturbed_gpu_flagged_in_the_committed_run():
    runs = DATA / "h200x2-nodecheck"
    assert python(GPU / "checks.py", "flagged", runs / "run-c", 1).returncode == 0
    not_flagged = python(GPU / "checks.py", "flagged", runs / "run-b", 1)
    assert not_flagged.returncode == 1
    assert "GPU 1 flagged against the baseline: nothing" in not_flagged.stdout
    assert python(GPU / "checks.py", "steps-ok", runs / "run-a").returncode == 0


def test_steps_ok_fails_on_a_failed_step_and_on_a_missing_run(tmp_path):
    manifest = json.loads((DATA / "h200x2-nodecheck" / "run-a" / "characterize.json").read_text())
    manifest["steps"][1]["status"] = "failed"
    (tmp_path / "characterize.json").write_text(json.dumps(manifest))
    done = python(GPU / "checks.py", "steps-ok", tmp_path)
    assert done.returncode == 1
    assert "5 of 6 steps ok (clock failed)" in done.stdout
    assert python(GPU / "checks.py", "steps-ok", tmp_path / "none").returncode == 2


@pytest.mark.parametrize(
    ("auto", "devices", "at_least", "code"),
    [("cuda", 2, 2, 0), ("cuda", 1, 2, 1), ("host", 4, 1, 1)],
)
def test_gpus_wants_a_gpu_backend_for_device_auto(tmp_path, auto, devices, at_least, code):
    report = {"backends": [{"backend": auto, "devices": devices}], "auto": auto, "auto_reason": "test"}
    (tmp_path / "devices.json").write_text(json.dumps(report))
    assert python(GPU / "checks.py", "gpus", tmp_path / "devices.json", "--at-least", at_least).returncode == code


def test_records_counts_a_kind_of_record():
    sweep = DATA / "h100-rounds" / "interference-1.jsonl.gz"
    assert python(GPU / "checks.py", "records", sweep, "point", "--at-least", 16).returncode == 0
    assert python(GPU / "checks.py", "records", sweep, "point", "--at-least", 17).returncode == 1
    assert python(GPU / "checks.py", "records", sweep, "clock_fit").returncode == 1


def builds(tmp_path: Path, old: list[float], new: list[float]) -> Path:
    """compare_builds.sh's runs: one send time per run (ns) on each side, nothing else measured."""
    for side, values in (("old", old), ("new", new)):
        for i, ns in enumerate(values, 1):
            run_dir = tmp_path / f"{side}-{i}"
            run_dir.mkdir()
            point = {"record": "point", "layout": "SSB", "access": "stacked", "size_bytes": 1024}
            (run_dir / "sweep.jsonl").write_text(json.dumps({**point, "send_time_ns": {"median": ns}}) + "\n")
            (run_dir / "notify.jsonl").write_text("")
            (run_dir / "bandwidth.jsonl").write_text("")
    return tmp_path


@pytest.mark.parametrize(
    ("old", "new", "code"),
    [
        ([1000, 1010, 990], [1005, 995, 1012], 0),  # the same
        ([1000, 1010, 990], [1300, 900, 1250], 0),  # 25% up in the median, but the runs overlap
        ([1000, 1010, 990], [1200, 1250, 1210], 1),  # 21% up, every run above every old one
    ],
)
def test_compare_builds_fails_on_a_number_not_kept(tmp_path, old, new, code):
    done = python(GPU / "compare_medians.py", builds(tmp_path, old, new))
    assert done.returncode == code, done.stdout + done.stderr
    if code:
        assert "not kept: interference SSB stacked 1024 B send: no: beyond 10%, runs apart" in done.stdout


def test_compare_builds_takes_a_new_measurement_but_not_a_dropped_one(tmp_path):
    runs = builds(tmp_path, [1000, 1010], [1005, 995])
    extra = {"record": "point", "layout": "OWN", "access": "stacked", "size_bytes": 1024, "send_time_ns": {"median": 9}}
    for side in ("new", "old"):
        for run_dir in sorted(runs.glob(f"{side}-*")):
            with (run_dir / "sweep.jsonl").open("a") as f:
                f.write(json.dumps(extra) + "\n")
        done = python(GPU / "compare_medians.py", runs)
        if side == "new":  # OWN in the new build alone: a measurement it adds
            assert done.returncode == 0, done.stdout
            assert "| new: only this build measures it |" in done.stdout
    (runs / "new-2" / "sweep.jsonl").write_text((runs / "new-1" / "sweep.jsonl").read_text().splitlines()[0] + "\n")
    done = python(GPU / "compare_medians.py", runs)
    assert done.returncode == 3, done.stdout  # OWN dropped from a new run: missing, not a move
    assert "interference OWN stacked 1024 B send: missing" in done.stdout


def test_compare_builds_fails_without_runs(tmp_path):
    done = python(GPU / "compare_medians.py", tmp_path)
    assert done.returncode == 3  # not a move: compare_builds.sh must not answer it with more rounds
    assert "not kept: no old runs; no new runs" in done.stdout


def table1_launch(results: Path, launch: int, bare: tuple[float, float], mine: tuple[float, float] | None) -> None:
    """table1.sh's files of one launch: the bare line (CPU, GPU pair ns) and hetprobe's handover records."""
    (results / f"bare-{launch}.txt").write_text(
        f"bare-table1 pairs=1000 cpu_pair_ns={bare[0]} tsc_empty_ns=20 cpu_beyond_ns={bare[0] - 20} "
        f"gpu_pair_ns={bare[1]} globaltimer_cost_ns=0 gpu_beyond_ns={bare[1]}\n"
    )
    setup = {"cpu_order": "volatile", "gpu_order": "relaxed"}
    records = [{"record": "header", "schema": "hetprobe.results", "schema_version": 3, "probe": "notify"}] + [
        {
            "record": "handover",
            "probe": "notify",
            "side": side,
            "setup": setup,
            "pair_ns": {"median": ns},
            "timer_cost_ns": {"median": 20.0 if side == "cpu" else 0.0},
            "pair_beyond_timer_ns": ns - (20.0 if side == "cpu" else 0.0),
        }
        for side, ns in zip(("cpu", "gpu"), mine or ())
    ]
    (results / f"notify-{launch}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


@pytest.mark.parametrize(
    ("mine", "code", "said"),
    [
        ([(62, 1150), (70, 1180), (58, 1120)], 0, "both pairs close to the bare program's"),
        ([(75, 1150), (76, 1180), (74, 1120)], 1, "cpu pair 75.0 ns against the bare 63.0 ns"),  # 12 ns off under 100
        ([(62, 1300), (70, 1310), (58, 1290)], 1, "gpu pair 1300.0 ns against the bare 1150.0 ns"),  # 13% off
        ([(62, 1150), (70, 1180), None], 1, "launch 3 cpu: missing its record; launch 3 gpu: missing its record"),
    ],
)
def test_table1_holds_hetprobe_to_the_bare_programs_pairs(tmp_path, mine, code, said):
    bare = [(63, 1150), (61, 1160), (66, 1140)]
    for launch, (b, m) in enumerate(zip(bare, mine), 1):
        table1_launch(tmp_path, launch, b, m)
    done = python(GPU / "compare_table1.py", tmp_path, 3)
    assert done.returncode == code, done.stdout + done.stderr
    assert said in done.stdout


def gpus_launch(results: Path, launch: int, bare: float, mine: float) -> None:
    """gpus.sh's files of one launch on two GPUs: the bare lines and hetprobe gpus' rounds, every number of
    GPU 1 scaled by `bare` and `mine` (GPU 0 the same in both)."""
    lines = []
    for gpu, scale in ((0, 1.0), (1, bare)):
        lines.append(
            f"bare-gpus gpu={gpu} roundtrip_ns={2300 * scale} launch_sync_ns={9000 * scale} "
            f"copy_d2h_gbs={55 / scale} copy_h2d_gbs={55 / scale}"
        )
    (results / f"bare-{launch}.txt").write_text("\n".join(lines) + "\n")
    records = [{"record": "header", "schema": "hetprobe.results", "schema_version": 3, "probe": "gpus"}]
    for r in range(6):
        for gpu, scale in ((0, 1.0), (1, mine)):
            metrics = {
                "roundtrip_ns": 2300 * scale,
                "launch_sync_ns": 9000 * scale,
                "write_gbs": 52 / scale,
                "read_gbs": 51 / scale,
                "copy_d2h_gbs": 55 / scale,
                "copy_h2d_gbs": 55 / scale,
            }
            records.append({"record": "gpu_round", "probe": "gpus", "round": r, "gpu": gpu, "metrics": metrics})
    (results / f"gpus-{launch}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in records))


@pytest.mark.parametrize(("mine", "code"), [(1.05, 0), (1.2, 1), (0.85, 1)])
def test_gpus_holds_hetprobe_gpus_to_the_bare_program(tmp_path, mine, code):
    for launch in (1, 2, 3):
        gpus_launch(tmp_path, launch, 1.0, mine)
    done = python(GPU / "compare_gpus.py", tmp_path, 3)
    assert done.returncode == code, done.stdout + done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("| 1 | roundtrip_ns"))
    assert row.endswith(f"| {code == 0} |"), row
    assert python(GPU / "compare_gpus.py", tmp_path).returncode == 2  # LAUNCHES missing


def test_cold_holds_hetprobe_to_the_bare_program_on_the_committed_h200_launches():
    """notebooks/data/h200x2-cold: 64 KiB and 1 MiB within 10% of the bare program; at 1 KiB the medians of
    three launches differ by 28% (both programs move 1.9-4.3 µs between launches), and a launch's cold ÷
    warm interval is wider than ±15%: the gate says both, naming them."""
    done = python(GPU / "compare_cold.py", DATA / "h200x2-cold" / "cold-sh-60rounds", 3)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "hetprobe/bare cold median: 0.986 (-1.4%): within 10%" in done.stdout
    assert "hetprobe/bare cold median: 1.017 (+1.7%): within 10%" in done.stdout
    assert "1024 B: hetprobe's cold median 2.777 us against the bare 3.856 us" in done.stdout
    assert "1024 B launch 1: hetprobe's cold/warm 2.042 (1.923-2.494) wider than ±15%" in done.stdout
    assert "1024 B launch 2" not in done.stdout  # 1.822 (1.767-1.881) is within


def test_kgpu_holds_hetprobe_own_to_the_bare_programs_own_allocations():
    """notebooks/data/h200x2-kgpu/kgpu-sh: both GPUs writing at 16 MiB, hetprobe OWN 1.090 against the bare
    program's 1.000 over three launches, within 10%; a missing launch is bad input."""
    done = python(GPU / "compare_kgpu.py", DATA / "h200x2-kgpu" / "kgpu-sh", 3)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1.090 / 1.000 = 1.089" in done.stdout
    done = python(GPU / "compare_kgpu.py", DATA / "h200x2-kgpu" / "kgpu-sh", 4)
    assert done.returncode == 2 and "bare-own-4.txt: missing" in done.stdout + done.stderr


def test_cold_holds_hetprobe_to_the_bare_program_on_the_committed_four_gpu_launches():
    """notebooks/data/h200x4-cold: six alternations on GPU 0 of four H200s, every size within 10% of the bare
    program and every 1 KiB cold ÷ warm interval within ±15%."""
    done = python(GPU / "compare_cold.py", DATA / "h200x4-cold", 6)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "hetprobe/bare cold median: 0.962 (-3.8%): within 10%" in done.stdout
    assert "hetprobe's cold sends agree with the bare program's" in done.stdout


def test_kgpu_prints_each_side_with_the_others_receiver():
    """notebooks/data/h200x4-kgpu/kgpu-sh (kgpu.sh --receivers on four H200s): the gate fails at 1.312, and
    the receiver's GPU does not explain it: the bare program with its receiver on GPU 1, and hetprobe with
    both ranks on GPU 0, stay where they were."""
    done = python(GPU / "compare_kgpu.py", DATA / "h200x4-kgpu" / "kgpu-sh", 3)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "2.253 / 1.717 = 1.312" in done.stdout
    assert "receiver on GPU 1: bare 1.572, hetprobe 2.253 (1.434); receiver on GPU 0: bare 1.717, hetprobe 2.219" in (
        done.stdout
    )


def _clock_fits(path: Path, precisions: list[float], errors: list[float]) -> None:
    header = {"record": "header", "schema": "hetprobe.results", "schema_version": 3, "probe": "clock"}
    fits = [
        {"record": "clock_fit", "rank": r, "precision_ns": p, "drift_ppm": -5.0, "check": {"error_ns": e}}
        for r, (p, e) in enumerate(zip(precisions, errors))
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in [header, *fits]))


@pytest.mark.parametrize(
    ("concurrent", "error", "code", "said"),
    [
        (1248.0, 50.0, 0, "concurrent fits as precise as those in turn on every GPU"),
        (1400.0, 50.0, 1, "GPU 1: concurrent precision 1.122 x the in-turn one"),
        (1248.0, 2000.0, 1, "GPU 1: concurrent check error 2000.0 ns beyond"),
    ],
)
def test_clock_turns_holds_concurrent_fits_to_those_in_turn(tmp_path, concurrent, error, code, said):
    for n in (1, 2):
        _clock_fits(tmp_path / f"turns-{n}.jsonl", [1232.0, 1248.0], [20.0, 30.0])
        _clock_fits(tmp_path / f"concurrent-{n}.jsonl", [1232.0, concurrent], [10.0, error])
    done = python(GPU / "compare_clock_turns.py", tmp_path, 2)
    assert done.returncode == code, done.stdout + done.stderr
    assert said in done.stdout
    assert python(GPU / "compare_clock_turns.py", tmp_path, 3).returncode == 2  # launch 3 missing


@pytest.mark.parametrize(
    "script, env, args",
    [("model.sh", {"MODEL_LAUNCHES": bad}, []) for bad in ("0", "abc", "-1", " 3", "03", "1e3")]
    + [("kgpu.sh", {}, [bad]) for bad in ("0", "abc", "-2")]
    + [("kgpu.sh", {}, ["--far"]), ("compare_builds.sh", {}, ["old.tar", "x"])],
)
def test_a_campaign_checks_its_input_before_it_writes_anything(tmp_path, script, env, args):
    """Issue 54: MODEL_LAUNCHES=0 tests/gpu/model.sh gave exit 2 after making RESULTS_DIR and an empty
    expectations.txt. Bad input now writes nothing."""
    results = tmp_path / "results"
    done = subprocess.run(
        ["bash", str(GPU / script), *args],
        env=dict(os.environ, RESULTS_DIR=str(results), **env),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert not results.exists()
