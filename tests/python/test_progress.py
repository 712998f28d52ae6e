"""Progress output: one redrawn bar on a terminal, plain lines in a batch log."""

import io

from hetprobe.progress import Progress, record_label

POINT = {"record": "point", "probe": "interference", "size_bytes": 4096, "layout": "PCB", "access": "stacked",
         "send_time_ns": {"median": 2500.0}, "status": "ok"}


def run(bar: bool) -> str:
    out = io.StringIO()
    p = Progress(out, bar=bar, width=10)
    p.start("interference", 4)
    for done in (1, 2):
        p.update("interference", done, 4, record_label(POINT))
    p.finish("interference", "ok", 2, 1.5)
    return out.getvalue()


def test_bar_redraws_one_line_and_ends_it():
    text = run(bar=True)
    assert text.count("\r\x1b[2K") == 4 and text.endswith("\n")
    assert "[#####.....] 2/4 4 KiB PCB stacked: MPI_Send median 2.50 us, ok" in text


def test_lines_mode_writes_one_plain_line_per_update():
    lines = run(bar=False).splitlines()
    assert len(lines) == 4 and "\r" not in "".join(lines)
    assert lines[2].endswith("interference 2/4: 4 KiB PCB stacked: MPI_Send median 2.50 us, ok")
    assert "ok, 2 records in 1.5 s" in lines[3]


def test_labels_of_notify_and_clock_records():
    assert record_label({"record": "mechanism", "mechanism": "launch+device-sync", "status": "skipped"}) == \
        "mechanism launch+device-sync: skipped"
    assert "drift 1.50 ppm" in record_label({"record": "clock_fit", "drift_ppm": 1.5, "precision_ns": 800.0})
