"""Progress output: one redrawn bar on a terminal, plain lines in a batch log; both with done/total,
the time since the start and the time left in the step (ETA), from a clock the test drives."""

import io

from hetprobe.run.progress import Progress, clock_text, record_label

POINT = {
    "record": "point",
    "probe": "interference",
    "size_bytes": 4096,
    "layout": "PCB",
    "access": "stacked",
    "load_kind": "write",
    "load_gpus": 1,
    "load_rate": "1",
    "send_time_ns": {"median": 2500.0},
    "status": "ok",
}


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def run(bar: bool) -> str:
    out, clock = io.StringIO(), FakeClock()
    p = Progress(out, bar=bar, width=10, steps=["notify", "interference"], clock=clock)
    clock.now += 5  # notify took 5 s
    p.start("interference", 4)
    for done in (1, 2):
        clock.now += 10  # 10 s a record: after 1 of 4, 30 s are left; after 2, 20 s
        p.update("interference", done, 4, record_label(POINT))
    p.finish("interference", "ok", 2, 1.5)
    return out.getvalue()


def test_bar_redraws_one_line_and_ends_it():
    text = run(bar=True)
    assert text.count("\r\x1b[2K") == 4 and text.endswith("\n")
    assert "[0:25] interference [#####.....] 2/4 ETA 0:20 4 KiB stacked PCB write x1: median 2.500 us" in text


def test_lines_mode_writes_one_plain_line_per_update():
    lines = run(bar=False).splitlines()
    assert len(lines) == 4 and "\r" not in "".join(lines)
    assert lines[0] == "[0:05] interference (step 2 of 2): started (4 records expected)"
    assert lines[1] == "[0:15] interference 1/4: 4 KiB stacked PCB write x1: median 2.500 us [ETA 0:30]"
    assert lines[2].endswith("interference 2/4: 4 KiB stacked PCB write x1: median 2.500 us [ETA 0:20]")
    assert "ok, 2 records in 1.5 s" in lines[3]


def test_without_a_total_there_is_no_eta_and_the_start_says_why():
    out, clock = io.StringIO(), FakeClock()
    p = Progress(out, bar=False, clock=clock)
    p.start("notify", None)
    clock.now += 3
    p.update("notify", 1, None, "overhead cpu volatile:relaxed")
    assert "no ETA: their count is not known" in out.getvalue()
    assert out.getvalue().splitlines()[1] == "[0:03] notify 1: overhead cpu volatile:relaxed"


def test_an_estimate_the_run_outgrows_and_long_times():
    out, clock = io.StringIO(), FakeClock()
    p = Progress(out, bar=False, clock=clock)
    p.start("notify", 2)
    clock.now += 4000
    p.update("notify", 3, 2, "mechanism x")  # more records than estimated: 3/3, nothing left
    assert out.getvalue().splitlines()[1] == "[1:06:40] notify 3/3: mechanism x [ETA 0:00]"
    assert clock_text(59.9) == "0:59" and clock_text(3600) == "1:00:00"


def test_labels_are_the_probes_own():
    """The labels come from each probe's C++ record_label (one owner): what `hetprobe notify` and
    `hetprobe clock` print in their own progress lines."""
    assert (
        record_label({"record": "mechanism", "probe": "notify", "mechanism": "launch+device-sync", "status": "skipped"})
        == "mechanism launch+device-sync: skipped"
    )
    fit = {"record": "clock_fit", "probe": "clock", "drift_ppm": 1.5, "precision_ns": 800.0}
    assert record_label(fit) == "clock fit: drift 1.50 ppm, precision 800 ns"
    # A point from a file of before the rounds has no ratio: none is made up (read with checked access).
    assert record_label(POINT) == "4 KiB stacked PCB write x1: median 2.500 us"
    rounds = {**POINT, "ratio_to_ssb_median": 1.25, "ratio_to_ssb_ci95": [1.1, 1.4]}
    assert record_label(rounds) == "4 KiB stacked PCB write x1: median 2.500 us, 1.250x SSB (95% CI 1.10-1.40)"
    # A record of a probe the table does not know is named by its kind.
    assert record_label({"record": "thing", "probe": "nonesuch"}) == "thing"
