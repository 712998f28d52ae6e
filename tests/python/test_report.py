"""hetprobe report DIR on complete, partial and noisy run directories (copies of the committed H200 x2
characterize run): the report is always written, says what is missing and why, and puts the warnings
the probes recorded beside the numbers they concern."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from conftest import REPO, RUNS, jsonl_records, write_jsonl

from hetprobe import UsageError
from hetprobe.cli import main
from hetprobe.report.write import write_report

RUN = RUNS / "h200x2-characterize"
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
        "clock.jsonl cannot be read: line 3: field 'device_end': missing (a clock clock_batch record)"
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


def _content(md: str) -> list[str]:
    return [ln for ln in md.splitlines() if ln.strip()]


def _marks_defined(md: str) -> dict[str, str]:
    """{"⚠N": its line in Conditions and warnings}; each N is defined once."""
    section = md[md.index("## Conditions and warnings") : md.index("## The node")]
    lines = [ln for ln in section.splitlines() if re.match(r"- ⚠\d+: ", ln)]
    defined = {ln[2 : ln.index(":")]: ln for ln in lines}
    assert len(defined) == len(lines), lines
    return defined


def test_the_report_leads_with_the_headline_table_then_one_conditions_section(noisy):
    md = (noisy / "report.md").read_text()
    lines = _content(md)
    assert lines[0].startswith("# hetprobe node report: ") and lines[0].endswith(", NVIDIA H200 (backend cuda)")
    assert lines[1] == "## Headline numbers" and lines[2] == "| quantity | value | how |"
    after = lines[lines.index("## Headline numbers") + 1 :]
    table_end = next(i for i, ln in enumerate(after) if not ln.startswith("|"))
    assert after[table_end] == "## Conditions and warnings"
    assert md.count("## Conditions and warnings") == 1
    # The run's conditions: written out once, there; the sections they concern carry the mark only.
    assert md.count(NOISY) == 1 and f"- ⚠1: {NOISY} (in notify.jsonl)" in md
    note = "⚠1: the conditions of this run (Conditions and warnings) apply to every number below."
    notify = md[md.index("## Notifications between CPU and GPU") :]
    assert note in notify
    gpus = md[md.index("## Every GPU") :]
    assert note in gpus[: gpus.index("\n## ", 1)]  # notify's round trip is in that table too
    paper = md[md.index("## The paper's layouts") : md.index("## Notifications")]
    assert "conditions of this run" not in paper  # that run's header has no warnings


def test_a_mark_means_one_thing_in_the_whole_report(noisy):
    md = (noisy / "report.md").read_text()
    defined = _marks_defined(md)
    assert defined["⚠1"].startswith(f"- ⚠1: {NOISY}")
    assert defined["⚠2"].startswith(f"- ⚠2: {SPREAD} (the worst of ")
    used = set(re.findall(r"⚠\d+(?:,\d+)*", md))
    assert {f"⚠{n}" for u in used for n in u[1:].split(",")} == set(defined)
    lines = md.splitlines()
    # Headline: the notify numbers carry their run's conditions; the paper's worst point its spread.
    fastest = next(ln for ln in lines if ln.startswith("| CPU→GPU→CPU flag round trip, fastest order"))
    assert "⚠1 |" in fastest
    worst = next(ln for ln in lines if ln.startswith("| Worst slowdown, the paper's writer"))
    assert "⚠2 |" in worst
    # Tables: the same warning has the same number in every table (it was ⚠1 in each before).
    fence = next(ln for ln in lines if ln.startswith("| fence:fence | pinned | line |"))
    volatile = next(ln for ln in lines if ln.startswith("| volatile:volatile | pinned | line |"))
    assert fence.endswith("| ⚠2 |") and volatile.endswith("|  |")
    psb = next(ln for ln in lines if ln.startswith("| stream | 4 MiB |"))
    assert psb.endswith("| ⚠2 |")
    assert "<th>⚠</th>" in (noisy / "report.html").read_text()


def test_no_warning_is_written_twice(noisy):
    md = (noisy / "report.md").read_text()
    assert md.count(NOISY) == 1 and md.count(SPREAD) == 1
    assert md.count("12.3x the median") == 1


def test_each_kind_of_warning_is_one_line_with_its_worst_reading_and_where(tmp_path):
    directory = copy_run(tmp_path, "notify.jsonl", "clock.jsonl")
    clock = jsonl_records(directory / "clock.jsonl")
    batch = "half_interval_ns p90 is 9x the median (threshold 2x, and 50 us above it): scheduler noise dominates"
    next(r for r in clock if r.get("record") == "clock_batch")["warnings"] = [batch]
    write_jsonl(directory / "clock.jsonl", clock)
    records = jsonl_records(directory / "notify.jsonl")
    spread = "roundtrip_ns p90 is {}x the median (threshold 2x, and 50 us above it): scheduler noise dominates"
    rate = "gbs p10 is {}x the median (threshold 1/2): other work slowed some samples down"
    trips = [r for r in records if r.get("record") == "roundtrip"]
    for r, x in zip(trips, ("3.1", "47.5", "12")):
        r["warnings"] = [spread.format(x)]
    for r, x in zip(trips[3:], ("0.4", "0.05")):  # for rates, lower is worse
        r["warnings"] = [rate.format(x)]
    write_jsonl(directory / "notify.jsonl", records)
    write_report(directory)
    md = (directory / "report.md").read_text()
    defined = sorted(ln.split(": ", 1)[1] for ln in _marks_defined(md).values())
    assert defined == [
        f"{rate.format('0.05')} (the worst of 2 readings, in notify.jsonl)",
        f"{batch} (in clock.jsonl; no number shown rests on these records alone)",  # the fit's batches
        f"{spread.format('47.5')} (the worst of 3 readings, in notify.jsonl)",
    ]
    assert "3.1x the median" not in md and "0.4x the median" not in md


def _headline_cell(md: str, quantity: str) -> str:
    row = next(ln for ln in md.splitlines() if ln.startswith(f"| {quantity} |"))
    return row.split(" | ")[1]


def test_a_number_reads_the_same_in_one_unit_wherever_it_stands(tmp_path):
    directory = copy_run(tmp_path, "notify.jsonl", "clock.jsonl")
    write_report(directory)
    md = (directory / "report.md").read_text()
    summary = (directory / "summary.txt").read_text()
    # The flag round trip: ns, as the notify and per-GPU tables show it (it read 2.24 µs in the headline).
    paper = _headline_cell(md, "CPU→GPU→CPU flag round trip, paper's order")
    assert paper == "2236 ns"
    gpu = next(ln for ln in md.splitlines() if ln.startswith("| 0 | 0000:00:06.0 |"))
    assert "| 2236 |" in gpu and "| -11.76 | 1232 |" in gpu
    assert _headline_cell(md, "GPU clock drift against the host clock") == "-11.76 ppm"
    assert "CPU→GPU→CPU flag round trip, paper's order: 2236 ns" in summary
    assert "round trip 2236 ns" in summary and "µs" not in summary
    assert "2.24 µs" not in md and "2.236 µs" not in md


IMPLAUSIBLE = (
    "ns_per_op median is 0.727x a tick of the TSC, the CPU's nominal cycle (0.385 ns; threshold 1x): each read "
    "took the previous write's value inside the core (store forwarding), so this times the loop, not a flag "
    "another agent sees"
)
TABLE1_CPU = "One flag read + write on the CPU (Elis et al. 2024, Table 1)"
TABLE1_GPU = "One flag read + write on the GPU (Elis et al. 2024, Table 1)"


def handover(setup: dict, side: str, pair_ns: float, timer_ns: float, beyond_ns: float) -> dict:
    """A handover record as bench/notify/notify_handover.cpp writes it, with these medians and its number."""

    def summary(ns):
        return {"n": 3, **{k: ns for k in ("min", "p10", "median", "p90", "p99", "max", "mean")}, "stddev": 0.0}

    cpu = side == "cpu"
    return {
        "record": "handover",
        "probe": "notify",
        "rank": 0,
        "side": side,
        "timed_by": "host" if cpu else "device",
        "timer": "tsc" if cpu else "device",
        "setup": setup,
        "pairs": 3,
        "pair_ns": summary(pair_ns),
        "timer_cost_ns": summary(timer_ns),
        "pair_beyond_timer_ns": beyond_ns,
        "timer_tick_ns": 0.476 if cpu else 32.0,
        "below_timer_tick": False,
        "missed_writes": 0,
        "samples": {"unit": "host_ticks" if cpu else "device_ticks", "ns_per_tick": 1.0, "values": [int(pair_ns)] * 3},
        "warnings": [],
    }


def with_handovers(directory, cpu=(62.0, 21.0, 41.5), gpu=(1152.0, 0.0, 1152.0)) -> None:
    """notify.jsonl with a handover record per side (pair, timer cost, number) in the paper's order. The
    numbers differ from pair - timer on purpose: the report must read the record's, never work one out."""
    records = jsonl_records(directory / "notify.jsonl")
    setup = next(r["setup"] for r in records if r.get("record") == "overhead")
    assert (setup["cpu_order"], setup["gpu_order"]) == ("volatile", "relaxed")
    write_jsonl(directory / "notify.jsonl", records + [handover(setup, "cpu", *cpu), handover(setup, "gpu", *gpu)])


def test_table1_lines_come_from_the_handover_records_with_the_timer_cost(tmp_path):
    directory = copy_run(tmp_path, "notify.jsonl", "clock.jsonl")
    with_handovers(directory)
    write_report(directory)
    md = (directory / "report.md").read_text()
    assert _headline_cell(md, TABLE1_CPU) == "41.5 ns per pair beyond the TSC's 21 ns empty region"
    assert _headline_cell(md, TABLE1_GPU) == "1152 ns per pair beyond the device timer's 0 ns back-to-back read"
    summary = (directory / "summary.txt").read_text()
    assert f"{TABLE1_CPU}: 41.5 ns per pair beyond the TSC's 21 ns empty region" in summary
    assert "3 pairs each timed alone on a flag the GPU wrote last; median as timed 62 ns" in md
    section = md[md.index("## Notifications between CPU and GPU") : md.index("## GPU clock")]
    assert "| volatile:relaxed | 41.5 | 1152 | 62 | 1152 | 21 | 0 |" in section  # number, pair, timer per side
    assert "The same pair in a loop on a line the timing side owns" in section  # the overhead records, not Table 1


def test_the_loop_on_an_owned_line_is_never_table1(tmp_path):
    """The committed run predates the handover part: its overhead records give no Table 1 line."""
    directory = copy_run(tmp_path, "notify.jsonl", "clock.jsonl")
    write_report(directory)
    assert "Table 1" not in (directory / "summary.txt").read_text()
    md = (directory / "report.md").read_text()
    assert "*Flag read + write of a flag the other side wrote last (Table 1): not available: no notify handover" in md


def test_a_host_run_says_what_its_numbers_are_and_flags_the_implausible_ones(tmp_path):
    """The issue's host run: 0.28 ns per flag pair in the loop (under one cycle of a 2.6 GHz TSC, which
    notify warns about), a clock precision of 35 ns beside a residual of 923 ns."""
    directory = copy_run(tmp_path, "notify.jsonl", "clock.jsonl")
    for name in ("notify.jsonl", "clock.jsonl"):
        records = jsonl_records(directory / name)
        records[0].update(backend="host", device_choice="no GPU found (no CUDA driver); using the host backend")
        for r in records:
            if r.get("record") == "overhead" and r["side"] == "cpu":
                r["ns_per_op"]["median"] = 0.28
                r["warnings"] = [IMPLAUSIBLE]
            if r.get("record") == "clock_fit":
                r.update(precision_ns=35.0, residual_rms_ns=923.0)
        write_jsonl(directory / name, records)
    with_handovers(directory)
    write_report(directory)
    md = (directory / "report.md").read_text()
    section = md[md.index("## Conditions and warnings") : md.index("## The node")]
    assert "No GPU found (no CUDA driver), so CPU threads played the GPU: these numbers describe this CPU" in section
    assert "using the host backend" not in md and "device choice" not in md  # said once, as one sentence
    assert "a core fetching a line another core wrote" in section and "two clocks of one oscillator" in section
    assert _headline_cell(md, TABLE1_CPU) == "41.5 ns per pair beyond the TSC's 21 ns empty region"
    assert "0.28" not in md[: md.index("## Conditions and warnings")]  # the loop is no headline number
    loop = next(ln for ln in md.splitlines() if ln.startswith("| volatile:relaxed |") and "| 0.28 |" in ln)
    assert _marks_defined(md)[loop.split()[-2]].startswith(f"- {loop.split()[-2]}: {IMPLAUSIBLE} (the worst of ")
    assert md.count(IMPLAUSIBLE) == 1
    precision = _headline_cell(md, "Clock sync precision")
    assert precision == "35 ns (the fit's residual rms: 923 ns)"


def test_summary_leads_with_numbers_and_writes_each_warning_once(noisy):
    summary = (noisy / "summary.txt").read_text().splitlines()
    # A number's own samples' warning stands beside it; the run's conditions, which apply to every
    # number of the run, are written once under the numbers, with the file they were recorded for.
    fastest = next(ln for ln in summary if "flag round trip, fastest order" in ln)
    assert "⚠" not in fastest
    worst = next(ln for ln in summary if "Worst slowdown, the paper's writer" in ln)
    assert worst.endswith("⚠ roundtrip_ns p90 is 12.3x the median")
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


def test_where_each_rank_ran_has_one_row_per_rank_and_probe(tmp_path):
    """issue 36's first look: a run of three gpus launches and five interference launches, every one of them
    on the same CPUs, lists each rank once per probe, not once per launch."""
    source = RUNS / "h200x4-verdict" / "run-1"
    directory = tmp_path / "run"
    shutil.copytree(source, directory)
    write_report(directory)
    md = (directory / "report.md").read_text()
    table = md.split("Where each rank ran")[1].split("\n\n")[1].splitlines()
    rows = [line for line in table if line.startswith("|") and not line.startswith("|--")][1:]
    assert rows and len(rows) == len(set(rows)), "\n".join(table)
    assert {line.split("|")[1].strip() for line in rows} >= {"gpus", "interference", "bandwidth"}


@pytest.mark.parametrize("damage", ["directory", "fifo", "device", "short"])
def test_a_step_whose_file_is_unusable_is_named_and_not_ok(tmp_path, capsys, damage):
    """Nothing skipped in silence (issue 36): notify.jsonl a directory, a FIFO or /dev/zero (once
    "complete", exit 0, "notify | ok"), or cut at a line's end (fewer records than characterize.json
    says notify wrote): the report names it, exits 1, and its step is not "ok"."""
    import os

    directory = copy_run(tmp_path)
    bad = directory / "notify.jsonl"
    lines = bad.read_text().splitlines(keepends=True)
    bad.unlink()
    if damage == "directory":
        bad.mkdir()
    elif damage == "fifo":
        os.mkfifo(bad)
    elif damage == "device":
        bad.symlink_to("/dev/zero")
    else:
        bad.write_text("".join(lines[:30]))
    code, out, _ = report(directory, capsys)
    why = {
        "directory": "notify.jsonl cannot be read: is a directory, not a regular file",
        "fifo": "notify.jsonl cannot be read: is a FIFO, not a regular file",
        "device": "notify.jsonl cannot be read: is a character device, not a regular file",
        "short": "notify.jsonl holds 29 of the 48 records that characterize.json says it wrote (cut)",
    }[damage]
    assert code == 1 and f"INCOMPLETE: {why}" in out, out
    steps = [ln for ln in (directory / "report.md").read_text().splitlines() if re.match(r"\| notify \| [a-z]", ln)]
    assert steps == [f"| notify | {'file cut' if damage == 'short' else 'file unusable'} | 0 | 48 | 4.823 |"], steps


@pytest.mark.parametrize("name", ["model.json", "report.md", "summary.txt", "interference_traffic.png"])
@pytest.mark.parametrize("kind", ["symlink", "fifo", "directory"])
def test_a_link_fifo_or_directory_where_the_report_writes_is_refused_and_nothing_written(tmp_path, capsys, name, kind):
    """Issue 54: model.json a symlink to a file outside the run (once overwritten through it), a FIFO (once
    blocking) or a directory (once a half-written report): refused before anything is written, named,
    exit 2; the file outside the directory keeps its bytes."""
    import os

    directory = copy_run(tmp_path)
    place = directory / name
    outside = tmp_path / "outside.json"
    outside.write_text("keep me\n")
    {"symlink": lambda: place.symlink_to(outside), "fifo": lambda: os.mkfifo(place), "directory": place.mkdir}[kind]()
    before = sorted(p.name for p in directory.iterdir())
    code, _, err = report(directory, capsys)
    words = {"symlink": "a symbolic link", "fifo": "a FIFO", "directory": "a directory"}[kind]
    assert code == 2 and f"{place} is {words}: the report writes a regular file there" in err, err
    assert sorted(p.name for p in directory.iterdir()) == before and outside.read_text() == "keep me\n"


def test_the_readmes_sample_is_todays_summary_in_lines_under_100_characters(tmp_path, monkeypatch, capsys):
    """The README's sample (issues 36, 52): what `hetprobe report` prints today from the newest committed
    characterize run of a GPU node, each line under 100 characters (a summary line wraps, a number kept
    with its unit), while summary.txt keeps one line per item for grep."""
    run = tmp_path / "h100-characterize-run-as-data"
    shutil.copytree(RUNS / run.name, run)
    for name in ("summary.txt", "report.md", "report.html"):
        (run / name).unlink(missing_ok=True)
    readme = (REPO / "README.md").read_text()
    start = readme.index("```\nvm: ") + 4
    sample = readme[start : readme.index("```", start)]
    monkeypatch.chdir(tmp_path)  # the report's paths as the README shows them
    code, printed, _ = report(run.name, capsys)
    assert code == 0 and sample == printed, printed
    assert max(len(line) for line in sample.splitlines()) < 100
    assert "launch+sync\n      10,125 ns" in sample  # not "launch+sync 10,125\n      ns"
    assert (
        "  GPU 0 0000:00:06.0 NUMA 0: link 32 GT/s x16 of 32 GT/s x16; round trip 2498 ns, launch+sync 10,125 ns"
        in (run / "summary.txt").read_text()
    )
    assert "before 2026" not in sample  # a run of today's probes: no old file's fallbacks


def test_a_pair_across_hosts_is_said_in_the_summary_and_the_frames_carry_mpi_path(tmp_path, capsys):
    """The first look (issue 36): a run whose interference pair crossed hosts says so in the summary, in
    `show`'s words, and the pandas frames carry mpi_path's columns; a pair on one host adds no line."""
    import hetprobe

    (tmp_path / "tcp").mkdir()
    shutil.copyfile(RUNS / "testbed-tcp" / "eager-boundary.jsonl", tmp_path / "tcp" / "eager-boundary.jsonl")
    code, out, _ = report(tmp_path / "tcp", capsys)
    text = " ".join(out.split())
    assert code == 0 and "MPI pair across hosts: sender hpa (rank 0), receiver hpb (rank 1): different hosts" in text
    assert "link eth0-eth0 at 1.25 GB/s (nominal)" in text
    points = hetprobe.load(tmp_path / "tcp").summary.query("probe == 'interference'")
    assert points["mpi_across_hosts"].all() and set(points["mpi_carrier"]) == {"tcp"}
    assert set(points["mpi_link_gbs"]) == {1.25} and set(points["mpi_eager_limit_bytes"]) == {65536}
    assert not points["mpi_at_or_above_eager_limit"].any()  # 65480 and 65481 B: below the 64 KiB limit
    code, out, _ = report(copy_run(tmp_path, "interference.jsonl", "topology.json"), capsys)
    assert "MPI pair across hosts" not in out


def test_the_fastest_order_is_the_smallest_median_round_trip():
    """The headline's fastest flag order is C++'s choice (_core.fastest_time): the CPU→GPU→CPU round
    trip with the smallest median of those the table shows, not the first or the slowest."""
    import hetprobe
    from hetprobe.report.headline import headline_table

    results = hetprobe.load(RUNS / "h200-notify.jsonl.gz")
    medians = hetprobe.data.roundtrip_table(results)[("cpu-gpu-cpu", "median")]
    order = medians.idxmin()[0]
    assert order != medians.index[0][0]  # the fastest is not simply the first row
    row = headline_table(results).set_index("quantity").loc["CPU→GPU→CPU flag round trip, fastest order"]
    assert row["how"].startswith(f"{order} flags")
    assert row["value"].startswith(f"{hetprobe.report.render.number(medians.min())} ns")
