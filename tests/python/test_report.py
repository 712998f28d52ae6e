"""hetprobe report DIR on complete, partial and noisy run directories (copies of the committed H200 x2
characterize run): the report is always written, says what is missing and why, and puts the warnings
the probes recorded beside the numbers they concern."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import DATA, jsonl_records, write_jsonl

from hetprobe import UsageError
from hetprobe.cli import main
from hetprobe.report import write_report

RUN = DATA / "h200x2-characterize"
# As bench/core/noise.cpp words them.
NOISY = (
    "5 runnable threads on the 2 CPUs of this run (3 besides its 2 rank(s); threshold: one per CPU): other "
    "work shares these CPUs, so latencies include scheduler delays"
)
SPREAD = (
    "roundtrip_ns p90 is 12.3x the median (threshold 2x, and 5 us above it): scheduler noise dominates these samples"
)


def copy_run(tmp_path, *names):
    """A copy of the committed run's results (the named files only, if given), without its report."""
    target = tmp_path / "run"
    target.mkdir()
    for path in RUN.iterdir():
        if (
            path.suffix in (".jsonl", ".json", ".txt")
            and path.name not in ("summary.txt",)
            and (not names or path.name in names)
        ):
            shutil.copyfile(path, target / path.name)
    (target / "logs").mkdir()  # the committed run keeps no logs (each step's stderr); a test writes one
    return target


def report(directory, capsys) -> tuple[int, str, str]:
    code = main(["report", str(directory)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_complete_run_without_warnings_reports_as_before(tmp_path, capsys):
    # Files from before the noise warnings: the committed report.md, byte for byte.
    directory = copy_run(tmp_path)
    code, out, _ = report(directory, capsys)
    assert code == 0
    assert (directory / "report.md").read_text() == (RUN / "report.md").read_text()
    assert "INCOMPLETE" not in out and "⚠" not in out


def test_a_partial_run_gets_its_report_saying_what_is_missing(tmp_path, capsys):
    directory = copy_run(tmp_path)
    header = (directory / "notify.jsonl").read_text().splitlines()[0]
    (directory / "notify.jsonl").write_text(header + "\n")  # notify: its header only
    (directory / "clock.jsonl").unlink()  # clock: no file
    (directory / "interference.jsonl").write_text("")  # the loads: an empty file
    manifest = json.loads((directory / "characterize.json").read_text())
    manifest["steps"][0].update(status="failed", exit_code=1, records=0)
    (directory / "characterize.json").write_text(json.dumps(manifest))
    (directory / "logs" / "notify.log").write_text(
        "hetprobe notify: timeout error: the device's echo did not happen within 30.000000 s\n"
        "--------------------------------------------------------------------------\n"
        "mpirun detected that one or more processes exited with non-zero status\n"
    )
    code, out, err = report(directory, capsys)
    assert code == 1, err  # written, but the run is incomplete
    md = (directory / "report.md").read_text()
    assert "This run is incomplete" in md
    assert (
        "notify failed (exit code 1) after 0 record(s): hetprobe notify: timeout error: the device's echo did "
        "not happen within 30.000000 s"
    ) in md
    assert "clock.jsonl is missing (characterize.json says its step wrote 8 record(s))" in md
    assert "interference.jsonl cannot be read: holds no complete record" in md
    # Every section is there; the ones without records say so; the complete ones are complete.
    for title in (
        "## Notifications between CPU and GPU",
        "## GPU clock on the CPU timeline",
        "## Interference: GPU traffic during MPI_Send",
        "## The paper's layouts",
    ):
        assert title in md
    assert md.count("No finished records of this probe: nothing to show.") == 2  # notify and clock
    assert "![Median MPI_Send time divided by the SSB median" in md  # the paper's sweep is whole
    assert (directory / "interference_traffic.png").stat().st_size > 10_000  # from the rate run
    assert "Worst slowdown, the paper's writer" in out and "flag round trip" not in out
    assert "INCOMPLETE: notify failed" in out and "INCOMPLETE: clock.jsonl is missing" in out
    assert (directory / "report.html").stat().st_size > 100_000 and (directory / "summary.txt").exists()


def test_a_run_that_left_no_results_still_gets_a_report(tmp_path, capsys):
    directory = tmp_path / "run"
    (directory / "logs").mkdir(parents=True)
    manifest = json.loads((RUN / "characterize.json").read_text())
    for step in manifest["steps"]:
        step.update(status="failed", exit_code=-9, records=0)
    (directory / "characterize.json").write_text(json.dumps(manifest))
    code, out, _ = report(directory, capsys)
    assert code == 1
    md = (directory / "report.md").read_text()
    assert "No probe finished a measurement" in md and "No topology was recorded" in md
    assert "notify failed (exit code -9) after 0 record(s): its log names no error" in md
    assert "no probe left a results header" in out


def test_a_malformed_file_is_left_out_and_named(tmp_path):
    directory = copy_run(tmp_path, "clock.jsonl", "topology.json")
    records = jsonl_records(directory / "clock.jsonl")
    del records[2]["device_end"]
    write_jsonl(directory / "clock.jsonl", records)
    written = write_report(directory)
    assert written.problems == [
        "clock.jsonl cannot be read: line 3: field 'device_end.values': missing (a clock clock_batch record)"
    ]
    assert "clock.jsonl cannot be read: line 3" in (directory / "report.md").read_text()


@pytest.fixture(scope="module")
def noisy(tmp_path_factory):
    """The committed notify and paper-sweep files with the conditions and spread warnings of a loaded
    machine added as the probes record them (docs/results-schema.md), and their report."""
    directory = tmp_path_factory.mktemp("noisy")
    for name in ("notify.jsonl", "interference-paper.jsonl"):
        records = jsonl_records(RUN / name)
        records[0].update(
            conditions={"cpus": 2, "runnable_threads": 5, "load_average": [3.1, 2.0, 1.0]},
            warnings=[NOISY] if name == "notify.jsonl" else [],
        )
        for r in records[1:]:
            fence = (
                r.get("record") == "roundtrip"
                and r["setup"]["cpu_order"] == "fence"
                and r["direction"] == "cpu-gpu-cpu"
            )
            r["warnings"] = [SPREAD] if fence or (r.get("layout") == "PSB" and r["size_bytes"] == 4 << 20) else []
        write_jsonl(directory / name, records)
    write_report(directory)
    return directory


def test_conditions_open_the_report_and_the_affected_section(noisy):
    md = (noisy / "report.md").read_text()
    assert f"⚠ Measurement conditions (notify.jsonl): {NOISY}" in md
    assert md.index("Measurement conditions") < md.index("## Headline numbers")
    notify = md[md.index("## Notifications between CPU and GPU") :]
    assert f"The conditions of the notify run make its numbers doubtful: {NOISY}" in notify
    paper = md[md.index("## The paper's layouts") : md.index("## Notifications")]
    assert "conditions of the" not in paper  # that run's header has no warnings


def test_every_affected_number_is_marked_with_its_warning(noisy):
    md = (noisy / "report.md").read_text()
    lines = md.splitlines()
    # Headline: the notify numbers carry the run's conditions (⚠1); the paper's worst point its spread.
    fastest = next(ln for ln in lines if ln.startswith("| CPU→GPU→CPU flag round trip, fastest order"))
    assert "⚠1 |" in fastest and f"- ⚠1: {NOISY}" in md
    worst = next(ln for ln in lines if ln.startswith("| Worst slowdown, the paper's writer"))
    assert "⚠2 |" in worst and f"- ⚠2: {SPREAD}" in md
    # Tables: a ⚠ column marks the rows whose records warn, the warning is written under the table.
    fence = next(ln for ln in lines if ln.startswith("| fence:fence | pinned | line |"))
    volatile = next(ln for ln in lines if ln.startswith("| volatile:volatile | pinned | line |"))
    assert fence.endswith("| ⚠1 |") and volatile.endswith("|  |")
    psb = next(ln for ln in lines if ln.startswith("| stream | 4 MiB |"))
    assert psb.endswith("| ⚠1 |")
    assert "<th>⚠</th>" in (noisy / "report.html").read_text()


def test_summary_leads_with_numbers_and_writes_each_warning_once(noisy):
    summary = (noisy / "summary.txt").read_text().splitlines()
    # A number's own samples' warning stands beside it; the run's conditions, which apply to every
    # number of the run, are written once under the numbers, with the file they were recorded for.
    fastest = next(ln for ln in summary if "flag round trip, fastest order" in ln)
    assert "⚠" not in fastest
    worst = next(ln for ln in summary if "Worst slowdown, the paper's writer" in ln)
    assert worst.endswith("⚠ noisy: roundtrip_ns p90 is 12.3x the median")
    assert f"  ⚠ measurement conditions: {NOISY} (in notify.jsonl)" in summary
    assert summary.index(f"  ⚠ measurement conditions: {NOISY} (in notify.jsonl)") > summary.index(worst)
    assert sum(NOISY in ln for ln in summary) == 1
    assert sum("12.3x the median" in ln for ln in summary) == 1  # later numbers say "as above"


def test_report_refuses_what_is_not_a_run_directory(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    for bad, message in (
        (tmp_path / "file", "is not a run directory"),
        (tmp_path / "missing", "is not a run directory"),
        (tmp_path, "holds no results"),
    ):
        code, _, err = report(bad, capsys)
        assert code == 2 and message in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]  # nothing written
    directory = copy_run(tmp_path, "topology.json")
    (directory / "report.md").mkdir()
    with pytest.raises(UsageError, match="report.md is a directory"):
        write_report(directory)
    assert not (directory / "summary.txt").exists()
