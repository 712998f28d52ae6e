"""hetprobe characterize, the main job, on the host backend (--quick, 3 launches of the
interference steps): the run directory, the report, the summary and the progress lines; a run
whose probes fail still leaves its report."""

import json
import os
import re
import subprocess
import sys

import pytest
from conftest import quick_characterize

import hetprobe
from hetprobe.report.write import printed_summary

LAUNCHED = ("interference", "interference-rate", "interference-paper", "interference-cold")
# Every step's name in the order characterize runs them: the gpus step's first launch, the per-GPU steps,
# its second, each launch of the interference steps in turn (launch 1's files keep the step's own name),
# its third.
INTERFERENCE = [step if k == 1 else f"{step}.launch{k}" for k in (1, 2, 3) for step in LAUNCHED]
STEPS = ["gpus", "notify", "clock", "bandwidth", "gpus.launch2", *INTERFERENCE, "gpus.launch3"]


def test_the_run_directory_holds_every_probe_and_the_report(host_run):
    directory, done = host_run
    assert done.returncode == 0, done.stderr
    for name in (
        *[f"{step}.jsonl" for step in STEPS],
        *[f"{step}.txt" for step in STEPS],
        *[f"logs/{step}.log" for step in INTERFERENCE],
        "topology.json",
        "topology.txt",
        "report.md",
        "report.html",
        "summary.txt",
        "characterize.json",
        "model.json",
    ):
        assert (directory / name).stat().st_size > 0, name
    manifest = json.loads((directory / "characterize.json").read_text())
    assert [s["file"] for s in manifest["steps"]] == [f"{step}.jsonl" for step in STEPS]
    assert [s["probe"] for s in manifest["steps"]] == ["gpus", "notify", "clock", "bandwidth", "gpus"] + list(
        LAUNCHED
    ) * 3 + ["gpus"]
    assert [s.get("launch") for s in manifest["steps"]] == [1, None, None, None, 2] + [1] * 4 + [2] * 4 + [3] * 4 + [3]
    assert manifest["launches"] == {step: 3 for step in LAUNCHED} and manifest["launches_asked"] == 3
    assert all(s["status"] == "ok" and s["wall_s"] > 0 for s in manifest["steps"])
    r = hetprobe.load(directory)
    assert set(r.summary["probe"]) == {"notify", "clock", "bandwidth", "interference"}
    # One host device: every per-GPU step ran alone, without a launcher.
    assert all(s["command"].split()[0].endswith("hetprobe") for s in manifest["steps"][:3])
    assert manifest["gpus"] == 1 and manifest["tolerance"] == 0.1 and len(manifest["per_gpu"]) == 1
    assert manifest["anomalies"] == []
    assert r.topology and r.topology["pus"] >= 1


def test_the_report_shows_and_keeps_the_node_model(host_run):
    """The fit is C++'s (hetprobe.model reads the same document); the report shows it and keeps it."""
    directory, _ = host_run
    kept = json.loads((directory / "model.json").read_text())
    fitted = hetprobe.model(directory)
    assert kept == fitted.document
    report = (directory / "report.md").read_text()
    section = report[report.index("## The node model") :]
    alpha = fitted.document["fit"]["alpha_s"]
    assert f"| alpha (latency) | - | {alpha['median'] * 1e6:.4g} |" in section
    assert section.count("| gamma (slowdown per traffic) |") == len(fitted.document["fit"]["slowdown"])


def test_each_header_plans_the_records_its_probe_wrote(host_run):
    """The progress total and its ETA come from the header's planned_records: it must be exact."""
    directory, _ = host_run
    for name in STEPS:
        lines = [json.loads(line) for line in (directory / f"{name}.jsonl").read_text().splitlines()]
        header, records = lines[0], lines[1:]
        assert header["record"] == "header"
        assert header["planned_records"] == len([r for r in records if r.get("rank", 0) == 0]), name


def test_the_report_says_it_ran_on_cpu_threads_and_shows_the_plots(host_run):
    directory, _ = host_run
    md = (directory / "report.md").read_text()
    assert "CPU threads played the GPU" in md
    # One host device: no GPU-count plot.
    pngs = (
        "interference_traffic.png",
        "interference_send_time.png",
        "interference_ratio.png",
        "notify_roundtrip.png",
        "notify_mechanisms.png",
        "clock.png",
    )
    for png in pngs:
        assert f"]({png})" in md
        assert (directory / png).stat().st_size > 10_000, png
    html = (directory / "report.html").read_text()
    assert html.count("data:image/png;base64,") == len(pngs) and "<table" in html
    assert "Headline numbers" in md and "MPI_Send" in md
    assert "GPU traffic during MPI_Send" in md and "The paper's layouts" in md


def test_stdout_has_the_summary_and_stderr_the_progress_lines(host_run):
    directory, done = host_run
    assert "no GPU used" in done.stdout and "run directory:" in done.stdout
    assert "flag round trip" in done.stdout
    # stdout has the summary wrapped to 99 columns; summary.txt keeps one line an item, read below.
    assert printed_summary(directory) in done.stdout
    summary = (directory / "summary.txt").read_text().splitlines()
    # The headline names the largest slowdown its 95% interval supports, or says there is none beyond
    # noise with the largest median ratio; either way the point's kind, GPU count, placement, size, its SSB
    # and loaded medians and the traffic, then the other claimed slowdowns whose intervals reach it (a
    # busy machine makes them likelier). It may come from the rate run, which names its rate
    # (report/interference_headline.py).
    worst = next(line for line in summary if "MPI_Send slowdown under GPU traffic:" in line)
    point = (
        r"(write|read|poll|copy-d2h|copy-h2d) from 1 GPU( at rate 0\.5)?, "
        r"(into an allocation of its own \(OWN\)|2 MiB past the send buffer \(P2AB\)), (1|64) KiB: SSB [0-9.,]+ µs, "
        r"loaded [0-9.,]+ µs, [0-9.,]+ GB/s during the send(; as large within the noise: .+?)?(  ⚠ .+)?$"
    )
    assert re.search(r": [0-9.]+× SSB \(95% CI [0-9.]+-[0-9.,]+\): " + point, worst) or re.search(
        r": no slowdown beyond noise: the largest median ratio is [0-9.,]+× SSB \(95% CI [0-9.]+-[0-9.,]+\), " + point,
        worst,
    ), worst
    # Cold sends: the SSB median with 2 ms of computing before each send, and the warm sends of the same
    # visits, cold ÷ warm paired round by round, per size.
    cold = next(line for line in summary if "Cold MPI_Send, the GPU idle" in line)
    each = r"[0-9.,]+ µs cold, [0-9.,]+ µs warm, [0-9.,]+× \((95% CI [0-9.,]+-[0-9.,]+|no 95% interval)\)"
    assert re.search(rf"\(2ms of spinning before each send\): 1 KiB: {each}; 64 KiB: {each}", cold), cold
    assert "Cold MPI_Send slowdown under GPU traffic: " in done.stdout
    assert "Host memory bandwidth (STREAM" in done.stdout
    count = {
        name: len(
            [line for line in (directory / f"{name}.jsonl").read_text().splitlines() if '"record":"point"' in line]
        )
        for name in ("interference", "interference.launch3", "interference-paper", "interference-cold")
    }
    assert count["interference"] == 2 * (1 + 5)  # --quick: 1 and 64 KiB, SSB + every kind from 1 GPU (1 host device)
    assert count["interference.launch3"] == count["interference"]
    assert count["interference-paper"] == 3 * 4 * 2  # 1KiB:1MiB:x16 is 1, 16 and 256 KiB
    assert count["interference-cold"] == 2 * (1 + 5)  # 1 and 64 KiB, SSB + every kind, 2 ms before each send
    records = count["interference"] + 1  # and the host memory record, in the first launch only
    assert f"interference {records}/{records}:" in done.stderr
    assert f"interference.launch2 {records - 1}/{records - 1}:" in done.stderr
    assert f"interference-paper {count['interference-paper']}/{count['interference-paper']}:" in done.stderr
    assert f"interference-cold.launch3 {count['interference-cold']}/{count['interference-cold']}:" in done.stderr
    # the count expected from notify's header: 12 handovers + 24 overheads + 12 round trips + 12 mechanisms
    assert "notify 60/60:" in done.stderr
    # Table 1 from the handover records, with each timer's own cost beside it.
    lines = summary
    cpu = next(ln for ln in lines if "One flag read + write on the CPU (Elis et al. 2024, Table 1): " in ln)
    assert re.search(r": -?[0-9.,e+-]+ ns per pair beyond (the TSC's|steady_clock's) [0-9.,e+-]+ ns empty region", cpu)
    gpu = next(ln for ln in lines if "One flag read + write on the GPU (Elis et al. 2024, Table 1): " in ln)
    assert re.search(r": -?[0-9.,e+-]+ ns per pair beyond the device timer's [0-9.,e+-]+ ns back-to-back read", gpu)
    assert re.search(r"interference 1/13: .* \[ETA \d+:\d\d\]$", done.stderr, re.M)
    assert "clock (step 3 of 18): started (6 records expected)" in done.stderr
    assert "interference-cold.launch3 (step 17 of 18): started (12 records expected)" in done.stderr
    # --quick: 4 plain passes, 2 persistent writers, the write load twice (and the link record, where written)
    bandwidth = len((directory / "bandwidth.jsonl").read_text().splitlines()) - 1
    assert bandwidth in (8, 9) and f"bandwidth {bandwidth}/{bandwidth}:" in done.stderr
    assert "\r" not in done.stderr  # plain lines when stderr is not a terminal


def test_report_rewrites_the_same_report(host_run, tmp_path):
    import shutil
    import subprocess
    import sys

    directory, _ = host_run
    copy = tmp_path / "copy"
    shutil.copytree(directory, copy)
    (copy / "report.md").unlink()
    done = subprocess.run([sys.executable, "-m", "hetprobe", "report", str(copy)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (copy / "report.md").read_text() == (directory / "report.md").read_text()


def test_ctrl_c_keeps_every_finished_record(tmp_path):
    import signal
    import subprocess
    import time

    directory = tmp_path / "run"
    proc = subprocess.Popen(
        quick_characterize(
            "--skip",
            "gpus,notify,clock,bandwidth,interference-rate",
            "--launches",
            1,
            "--no-report",
            # Many points (15 sizes), so that SIGINT lands mid-run even when the spinning ranks starve
            # this poller: --quick's 12 points take about a second on an idle 2-core machine.
            "--interference-args",
            "--sizes 1KiB:16MiB:x2",
            directory,
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A suite started in the background (`cmd &` in a script) ignores SIGINT, and so would the child.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    results = directory / "interference.jsonl"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if results.exists() and results.read_text().count('"record":"point"') >= 2:
            break
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted" in err
    kept = hetprobe.load(results)
    finished = len(kept.summary[kept.summary["metric"] == "send_time_ns"])
    planned = json.loads(results.read_text().splitlines()[0])["planned_records"]
    assert 2 <= finished < planned - 1 and not kept.truncated  # planned: the points and the host-memory record
    manifest = json.loads((directory / "characterize.json").read_text())
    assert manifest["steps"][0]["status"] == "interrupted"


# A hetprobe whose notify and clock fail as they did on a loaded machine; every other command is the
# real one. notify: 4 records (the first order's two handovers and two overhead records), then the
# device's timeout and exit 1; clock: 2 records, then SIGKILL.
NOTIFY_TIMEOUT = "hetprobe notify: timeout error: the device's echo did not happen within 30.000000 s"
FAILING = """#!{python}
import os, signal, subprocess, sys
REAL, args = {real!r}, sys.argv[1:]
if args[:1] not in (["notify"], ["clock"]) or "--check-options" in args:
    os.execv(REAL, [REAL] + args)
out = args[args.index("--out") + 1]
extra = ["--parts", "handover,overhead"] if args[0] == "notify" else []
subprocess.run([REAL] + [out + ".all" if a == out else a for a in args] + extra, check=True)
with open(out + ".all") as f:
    lines = f.readlines()[:5 if args[0] == "notify" else 3]
os.unlink(out + ".all")
with open(out, "w") as f:
    f.writelines(lines)
if args[0] == "clock":
    os.kill(os.getpid(), signal.SIGKILL)
print({error!r}, file=sys.stderr)
sys.exit(1)
"""


@pytest.fixture(scope="module")
def failing_run(tmp_path_factory):
    """(run directory, completed process) of characterize --quick whose notify and clock fail partway."""
    bin_dir = tmp_path_factory.mktemp("bin")
    fake = bin_dir / "hetprobe"
    fake.write_text(FAILING.format(python=sys.executable, real=hetprobe.binary(), error=NOTIFY_TIMEOUT))
    fake.chmod(0o755)
    directory = tmp_path_factory.mktemp("failing") / "run"
    done = subprocess.run(
        quick_characterize(
            "--progress", "lines", "--skip", "interference-rate,interference-paper,interference-cold", "--launches", 1
        )
        + [str(directory)],
        env=dict(os.environ, HETPROBE_BIN_DIR=str(bin_dir)),
        capture_output=True,
        text=True,
        timeout=900,
    )
    return directory, done


def test_a_failing_probe_keeps_its_records_and_the_run_exits_1(failing_run):
    directory, done = failing_run
    assert done.returncode == 1, done.stderr
    steps = {s["probe"]: s for s in json.loads((directory / "characterize.json").read_text())["steps"]}
    assert steps["notify"]["status"] == "failed" and steps["notify"]["records"] == 4
    assert steps["notify"]["error"] == NOTIFY_TIMEOUT
    assert steps["clock"]["status"] == "failed" and steps["clock"]["exit_code"] == -9
    assert steps["clock"]["records"] == 2 and steps["clock"]["error"] == "killed by signal SIGKILL"
    assert steps["interference"]["status"] == "ok"
    assert "FAILED: notify (exit code 1) after 4 record(s): hetprobe notify: timeout error" in done.stdout
    assert "FAILED: clock (exit code -9) after 2 record(s): killed by signal SIGKILL" in done.stdout


def test_a_failing_probe_keeps_its_report_section_and_the_others_are_complete(failing_run):
    directory, done = failing_run
    md = (directory / "report.md").read_text()
    notify = md[md.index("## Notifications between CPU and GPU") : md.index("## GPU clock")]
    assert (
        f"notify failed (exit code 1) after 4 record(s): {NOTIFY_TIMEOUT}. Only its finished records are shown."
        in notify
    )
    assert "| volatile:relaxed |" in notify  # Table 1 from the 2 finished handover records
    assert "The same pair in a loop on a line the timing side owns" in notify  # the loop, 2 overhead records
    assert "*Flag round trips: not available: no notify roundtrip records in these results.*" in notify
    clock = md[md.index("## GPU clock") : md.index("## How this was measured")]
    assert "clock failed (exit code -9) after 2 record(s): killed by signal SIGKILL" in clock
    assert "No clock fit" in clock
    loads = md[md.index("## Interference") : md.index("## Notifications")]
    assert "| write | 1 |" in loads and "](interference_traffic.png)" in loads and "not available" not in loads
    assert (
        "One flag read + write on the CPU (Elis et al. 2024, Table 1)" in done.stdout
    )  # the headline that has records
    assert "MPI_Send slowdown under GPU traffic: " in done.stdout
    assert "INCOMPLETE: notify failed" in done.stdout and "flag round trip" not in done.stdout
    again = subprocess.run([sys.executable, "-m", "hetprobe", "report", str(directory)], capture_output=True, text=True)
    assert again.returncode == 1 and (directory / "report.md").read_text() == md


def test_options_given_replace_the_presets_own():
    """--sizes, --reps and --interference-args replace the preset's value: a probe takes each option once
    (before, `characterize --sizes X` ran interference with two --sizes and it refused them)."""
    from hetprobe.run.presets import overridden

    preset = ["--sizes", "1KiB,64KiB", "--layouts", "SSB,P2AB", "--no-host-stream", "--reps", "5"]
    assert overridden(preset, ["--sizes", "4KiB", "--reps=9"]) == [
        "--layouts",
        "SSB,P2AB",
        "--no-host-stream",
        "--sizes",
        "4KiB",
        "--reps=9",
    ]
    assert overridden(preset, []) == preset


def test_every_preset_keyword_is_an_option_of_its_probe():
    """The presets are the Python API's keywords (hetprobe.notify(exchanges=5000)): each one an option
    of its step's probe, as the CLI's own parser has them, so a misspelt preset fails here, not on a node."""
    from hetprobe.data.steps import family
    from hetprobe.run.presets import PRESETS, PROBES
    from hetprobe.run.probes import cli_options

    for mode, steps in PRESETS.items():
        assert set(steps) == set(PROBES), mode
        for step, keywords in steps.items():
            unknown = set(keywords) - set(cli_options(family(step)))
            assert not unknown, (mode, step, unknown)


def test_every_step_is_run_one_way():
    """Each of characterize's steps is per GPU, the verdict's, or launched on its own: one of them only."""
    from hetprobe.run.presets import LAUNCHED_STEPS, PER_GPU_STEPS, PROBES, VERDICT_STEP

    groups = [set(PER_GPU_STEPS), {VERDICT_STEP}, set(LAUNCHED_STEPS)]
    assert set().union(*groups) == set(PROBES) and sum(map(len, groups)) == len(PROBES)
