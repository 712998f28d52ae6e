"""The report's figures as a reader sees them: each axis on the scale its data needs, no legend over data,
no point cut by an axes edge, and text large enough to read once report.html shows the PNG (measured on
the rendered canvas by figure_layout)."""

from __future__ import annotations

import pytest
from conftest import RUNS, jsonl_records, write_jsonl
from figure_layout import bars, clipped, data_points, legend_overlaps, rows_cut, small_text
from matplotlib.image import imread

from hetprobe import load, plots
from hetprobe.data.loads import load_points
from hetprobe.plots.style import DPI
from hetprobe.report.parts import PARTS

MATRIX = RUNS / "h200x2-load" / "matrix.jsonl.gz"  # every load kind, 1 and 2 GPUs, at three rates


def _clean(records):
    return [{k: v for k, v in r.items() if not k.startswith("_")} for r in records]


def _scaled(stats: dict, factor: float) -> dict:
    return {k: (v if k == "n" else v * factor) for k, v in stats.items()}


@pytest.fixture
def host_mechanisms(tmp_path):
    """A notify file as the host backend writes it: three flag mechanisms between 0.25 and 0.27 µs
    (h200-notify.jsonl.gz's, scaled) and the nine that need a GPU skipped, with the backend's reasons."""
    records = jsonl_records(RUNS / "h200-notify.jsonl.gz")
    out = [records[0]]
    for i, r in enumerate(r for r in records if r["record"] == "mechanism"):
        if i < 3:
            factor = (250 + 10 * i) / r["roundtrip_ns"]["median"]
            samples = {**r["samples"], "values": [v * factor for v in r["samples"]["values"]]}
            out.append({**r, "roundtrip_ns": _scaled(r["roundtrip_ns"], factor), "samples": samples})
        else:
            reason = (
                "no managed memory" if r["mechanism"] == "managed-flag" else "no kernel launches on the host backend"
            )
            keep = {k: r[k] for k in ("record", "probe", "mechanism", "go", "done", "setup", "rank")}
            out.append({**keep, "status": "skipped", "skipped_reason": reason})
    return load(write_jsonl(tmp_path / "notify.jsonl", _clean(out)))


def _clock_with_precision(tmp_path, precision_ns: float):
    """h200-clock.jsonl with its fit's precision set to `precision_ns`: the residuals (up to 403 ns) stay,
    so a small precision is a band far narrower than the residuals' spread, as on a loaded host."""
    records = _clean(jsonl_records(RUNS / "h200-clock.jsonl"))
    for r in records:
        if r["record"] == "clock_fit":
            r["precision_ns"] = precision_ns
    return load(write_jsonl(tmp_path / "clock.jsonl", records))


def _with_zero_traffic(tmp_path):
    """matrix.jsonl with every poll point's traffic during the sends 0 GB/s (a poll moves next to nothing)."""
    records = _clean(jsonl_records(MATRIX))
    for r in records:
        if r.get("record") == "point" and r.get("load_kind") == "poll":
            r["traffic_during_send_gbs"] = 0.0
    return load(write_jsonl(tmp_path / "zero.jsonl", records))


# --- every figure: legible, no legend over data, nothing cut ---------------------------------------------


def _report_figures(run):
    """(name, builder) of the figures the report makes of a characterize run directory, as it makes them."""
    inter = run.probe("interference")
    curve = inter.only_files(f"{PARTS['loads']}.jsonl", f"{PARTS['rates']}.jsonl")
    yield "notify_mechanisms", lambda: plots.mechanisms(run.probe("notify"))
    yield "notify_roundtrip", lambda: plots.roundtrip(run.probe("notify"))
    yield "clock", lambda: plots.clock(run.probe("clock"))
    yield "interference_traffic", lambda: plots.slowdown_vs_traffic(curve)
    yield "interference_gpus", lambda: plots.slowdown_vs_gpus(inter.only_files(f"{PARTS['loads']}.jsonl"))
    paper = inter.only_files(f"{PARTS['paper']}.jsonl")
    yield "interference_send_time", lambda: plots.send_time(paper)
    yield "interference_ratio", lambda: plots.ratio_to_ssb(paper)


COMMITTED = {
    "mechanisms (H200)": lambda tmp: plots.mechanisms(load(RUNS / "h200-notify.jsonl.gz")),
    "roundtrip (H200)": lambda tmp: plots.roundtrip(load(RUNS / "h200-notify.jsonl.gz")),
    "clock (H200)": lambda tmp: plots.clock(load(RUNS / "h200-clock.jsonl")),
    "clock (narrow band)": lambda tmp: plots.clock(_clock_with_precision(tmp, 10.0)),
    "clock (two H200s)": lambda tmp: plots.clock(load(RUNS / "h200x2-characterize-default" / "clock.jsonl.gz")),
    "traffic (two H200s)": lambda tmp: plots.slowdown_vs_traffic(load(MATRIX)),
    "traffic (0 GB/s)": lambda tmp: plots.slowdown_vs_traffic(_with_zero_traffic(tmp)),
    "traffic (rounds)": lambda tmp: plots.slowdown_vs_traffic(load(RUNS / "h100-rounds" / "interference-1.jsonl.gz")),
    "gpus (two H200s)": lambda tmp: plots.slowdown_vs_gpus(load(MATRIX)),
    "send time (H200)": lambda tmp: plots.send_time(load(RUNS / "h200-interference-sweep.jsonl.gz")),
    "ratio (rounds)": lambda tmp: plots.ratio_to_ssb(load(RUNS / "h100-rounds" / "interference-1.jsonl.gz")),
    "per GPU (two H200s)": lambda tmp: plots.per_gpu(RUNS / "h200x2-characterize"),
}


def _reads_at_a_glance(fig, tmp_path, name):
    """Saved as the report saves it: every text readable on report.html's page, no legend over a point or
    a bar, no point cut by an axes edge."""
    png = tmp_path / f"{name}.png"
    fig.savefig(png, dpi=DPI, format="png")  # as report/outputs.py's save writes it
    width = imread(png).shape[1]
    assert small_text(fig, width, DPI) == [], f"{name}: {width} px wide"
    assert legend_overlaps(fig) == [], name
    assert clipped(fig) == [], name


@pytest.mark.parametrize("name", COMMITTED)
def test_committed_figures_read_at_a_glance(name, tmp_path):
    _reads_at_a_glance(COMMITTED[name](tmp_path), tmp_path, name.split(" ")[0])


def test_a_host_runs_figures_read_at_a_glance(host_run, tmp_path):
    run = load(host_run[0], errors="skip")
    for name, make in _report_figures(run):
        _reads_at_a_glance(make(), tmp_path, name)


# --- notify_mechanisms.png -----------------------------------------------------------------------------


def test_mechanisms_narrow_range_is_linear_and_skipped_ones_are_a_note(host_mechanisms):
    fig = plots.mechanisms(host_mechanisms)
    ax = fig.axes[0]
    assert ax.get_xscale() == "linear" and ax.get_xlim()[0] == 0 and "log" not in ax.get_xlabel()
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "pinned-flag-volatile",
        "pinned-flag-volatile+fence",
        "pinned-flag-atomic",
    ]  # a row per measured mechanism, none empty
    assert len(bars(ax)) == 3 and rows_cut(ax) == []
    (note,) = [t.get_text().replace("\n", " ") for t in ax.texts]
    skipped = [r["mechanism"] for r in host_mechanisms.records if r.get("status") == "skipped"]
    assert len(skipped) == 9 and all(f" {name}" in note for name in skipped)  # each name whole, on one line
    assert note.startswith("Skipped: managed-flag (no managed memory); launch+pinned-flag, ")
    assert note.endswith(", stream-wait-value (no kernel launches on the host backend).")
    note_box = ax.texts[0].get_window_extent()
    assert note_box.y1 < ax.xaxis.label.get_window_extent().y0  # under the axis label, not on a row
    assert legend_overlaps(fig) == []


def test_mechanisms_wide_range_is_log():
    # A go call of 24 ns beside round trips of 2-27 µs: three decades.
    ax = plots.mechanisms(load(RUNS / "h200-notify.jsonl.gz")).axes[0]
    assert ax.get_xscale() == "log" and "log" in ax.get_xlabel()
    assert len(bars(ax)) == 12 and len(ax.texts) == 0 and rows_cut(ax) == []


# --- clock.png -----------------------------------------------------------------------------------------


def _band_share(ax) -> float:
    """The ±precision band's height as a share of the residual axes' height, on the canvas."""
    (band,) = [p for p in ax.patches if p.get_label().startswith("± precision")]
    return band.get_window_extent().height / ax.get_window_extent().height


@pytest.mark.parametrize("precision", [10.0, 848.0])
def test_clock_band_is_visible(precision, tmp_path):
    fig = plots.clock(_clock_with_precision(tmp_path, precision))
    residuals, rounds = fig.axes
    assert residuals.get_yscale() == "linear"
    assert _band_share(residuals) >= 0.18  # a fifth of the axis or more (less the edge room)
    (beyond,) = [t for t in residuals.get_legend_handles_labels()[1] if t.startswith("beyond")]
    used_beyond = int(beyond.split(": ")[1].split(" used")[0])
    # With the 10 ns band the used residuals (up to 403 ns) pass the ±50 ns axis: at its edge, counted.
    # With the file's own 848 ns, all fit inside the ±2544 ns axis (two check samples do not).
    assert (used_beyond > 0) == (precision == 10.0)
    low, high = residuals.get_ylim()
    ys = [y for x, y, _ in data_points(residuals)]
    drawn = sum(
        len(ln.get_ydata()) for ln in residuals.lines if ln.get_transform().contains_branch(residuals.transData)
    )
    assert drawn == 1400  # every sample, the ones beyond the axis at its edge
    lo_px, hi_px = residuals.transData.transform([(0, low), (0, high)])[:, 1]
    assert all(lo_px < y < hi_px for y in ys)
    assert legend_overlaps(fig) == [] and clipped(fig) == []
    assert rounds.get_xlabel() == "half round trip of a sync (ns)"  # plain words with the unit


def test_clock_histogram_turns_log_for_a_loaded_hosts_round_trips(tmp_path):
    records = _clean(jsonl_records(RUNS / "h200-clock.jsonl"))
    check = next(r for r in records if r["record"] == "clock_batch" and r["role"] == "check")
    # The check batch's syncs 1000x longer (0.9 ms), as when the host thread is descheduled mid-exchange.
    start, end = check["device_start"]["values"], check["device_end"]["values"]
    check["device_end"] = {**check["device_end"], "values": [s + (e - s) * 1000 for s, e in zip(start, end)]}
    fig = plots.clock(load(write_jsonl(tmp_path / "clock.jsonl", records)))
    rounds = fig.axes[1]
    assert rounds.get_xscale() == "log" and rounds.get_xlabel() == "half round trip of a sync (ns, log)"
    low, high = rounds.get_xlim()
    assert low < 848 and high > 800_000  # the fitted syncs and the slow ones, both on the axis
    assert legend_overlaps(fig) == []


# --- interference_traffic.png ---------------------------------------------------------------------------


def test_traffic_rates_are_labelled_not_joined():
    r = load(MATRIX)
    fig = plots.slowdown_vs_traffic(r)
    points = load_points(r)
    rated = points[(points["load_kind"] == "write") & (points["load_gpus"] == 1)]
    assert sorted(rated["load_rate"].unique()) == ["0.25", "0.5", "1"]
    for ax, size in zip(fig.axes, [1024, 65536, 1 << 20, 16 << 20]):
        for line in ax.lines:  # markers only: no line from one point to the next
            if len(line.get_xdata()) > 1 and line.get_transform().contains_branch(ax.transData):
                assert line.get_linestyle() == "None", line.get_label()
        labels = {(round(t.xy[0], 6), round(t.xy[1], 6)): t.get_text() for t in ax.texts}
        here = rated[rated["size_bytes"] == size]
        assert len(here) == 3
        for p in here.itertuples():
            assert labels[(round(p.traffic, 6), round(p.ratio_to_ssb, 6))] == f"@{p.load_rate}"
    assert "@r: the load's rate" in fig.axes[1].get_legend().get_title().get_text()


def test_traffic_panels_share_one_x_range_with_zero_whole(tmp_path):
    fig = plots.slowdown_vs_traffic(_with_zero_traffic(tmp_path))
    ranges = {ax.get_xlim() for ax in fig.axes}
    assert len(ranges) == 1  # one x range for the figure
    low, high = ranges.pop()
    assert low < 0 < high
    xs = [x for ax in fig.axes for line in ax.lines for x in line.get_xdata()]
    assert 0.0 in xs  # the poll points are drawn at 0 GB/s ...
    assert clipped(fig) == []  # ... whole
