"""hetprobe characterize, the main job, on the host backend (--quick): the run
directory, the report, the summary and the progress lines."""

import json
import re

import hetprobe


def test_the_run_directory_holds_every_probe_and_the_report(host_run):
    directory, done = host_run
    assert done.returncode == 0, done.stderr
    for name in ("notify.jsonl", "clock.jsonl", "interference.jsonl", "interference-rate.jsonl",
                 "interference-paper.jsonl", "topology.json", "topology.txt", "report.md", "report.html", "summary.txt",
                 "characterize.json"):
        assert (directory / name).stat().st_size > 0, name
    manifest = json.loads((directory / "characterize.json").read_text())
    assert [s["probe"] for s in manifest["steps"]] == ["notify", "clock", "interference", "interference-rate",
                                                      "interference-paper"]
    assert all(s["status"] == "ok" and s["wall_s"] > 0 for s in manifest["steps"])
    r = hetprobe.load(directory)
    assert set(r.summary["probe"]) == {"notify", "clock", "interference"}
    assert r.topology and r.topology["pus"] >= 1


def test_the_report_says_it_ran_on_cpu_threads_and_shows_the_plots(host_run):
    directory, _ = host_run
    md = (directory / "report.md").read_text()
    assert "CPU threads played the GPU" in md
    # One host device: no GPU-count plot.
    pngs = ("interference_traffic.png", "interference_send_time.png", "interference_ratio.png", "notify_roundtrip.png",
            "notify_mechanisms.png", "clock.png")
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
    # The headline names the worst slowdown's kind, GPU count, traffic and size.
    worst = next(line for line in done.stdout.splitlines() if "Worst MPI_Send slowdown under GPU traffic" in line)
    # The worst point may come from the rate run, which names its rate (report_sections.py).
    assert re.search(r"× SSB: (write|read|poll|copy-d2h|copy-h2d) from 1 GPU( at rate (0\.5))?, [0-9.]+ GB/s "
                     r"during the send, (1|64) KiB$", worst), worst
    assert "Host memory bandwidth (STREAM" in done.stdout
    count = {name: len([line for line in (directory / f"{name}.jsonl").read_text().splitlines()
                        if '"record":"point"' in line]) for name in ("interference", "interference-paper")}
    assert count["interference"] == 2 * (1 + 5)  # --quick: 1 and 64 KiB, SSB + every kind from 1 GPU (1 host device)
    assert count["interference-paper"] == 3 * 4 * 2  # 1KiB:1MiB:x16 is 1, 16 and 256 KiB
    records = count["interference"] + 1  # and the host memory record
    assert f"interference {records}/{records}:" in done.stderr
    assert f"interference-paper {count['interference-paper']}/{count['interference-paper']}:" in done.stderr
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
    import sys
    import time
    directory = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "hetprobe", "characterize", "--quick", "--device", "host",
                             "--skip", "notify,clock,interference-rate", "--no-report", str(directory)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
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
    assert 2 <= finished < 24 and not kept.truncated
    manifest = json.loads((directory / "characterize.json").read_text())
    assert manifest["steps"][0]["status"] == "interrupted"
