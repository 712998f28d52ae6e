"""hetprobe.plots: figures saved as PNG, and the tables' numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import REPO, RUNS, jsonl_records, skipped_mechanism, write_jsonl
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure

from hetprobe import data, plots
from hetprobe.data.load import load
from hetprobe.data.loads import load_points
from hetprobe.data.select import interference_points
from hetprobe.data.units import size_label
from hetprobe.errors import UsageError


@pytest.fixture(scope="module")
def sweep():
    return load(RUNS / "h200-interference-sweep.jsonl.gz")


@pytest.fixture(scope="module")
def timeline():
    return load(RUNS / "h200-interference-timeline.jsonl.gz")


@pytest.fixture(scope="module")
def notify():
    return load(RUNS / "h200-notify.jsonl.gz")


def _saved(fig, path, categorical=()):
    """A Figure saved as a real PNG, each labelled quantity axis with its unit in brackets."""
    assert isinstance(fig, Figure)
    assert path.exists() and path.stat().st_size > 10_000
    for ax in fig.axes:
        for label in (ax.get_xlabel(), ax.get_ylabel()):
            assert label == "" or "(" in label or label in categorical, label
    assert any(ax.get_ylabel() for ax in fig.axes) and any(ax.get_xlabel() for ax in fig.axes)


def _tick_texts(ax):
    ax.figure.canvas.draw()
    return [t.get_text() for t in ax.get_xticklabels()]


def test_size_labels():
    assert [size_label(s) for s in (512, 1024, 1536, 65536, 67108864, 2**30)] == [
        "512 B",
        "1 KiB",
        "1.5 KiB",
        "64 KiB",
        "64 MiB",
        "1 GiB",
    ]


def test_send_time(sweep, tmp_path):
    fig = plots.send_time(sweep, path=tmp_path / "send.png")
    _saved(fig, tmp_path / "send.png")
    assert [ax.get_title() for ax in fig.axes] == ["stream access", "stacked access"]
    assert [len(ax.lines) for ax in fig.axes] == [4, 4]
    assert [len(ax.collections) for ax in fig.axes] == [4, 4]  # the p10-p90 bands
    assert fig.axes[0].get_yscale() == "log" and "µs" in fig.axes[0].get_ylabel()
    ticks = _tick_texts(fig.axes[0])
    assert "1 KiB" in ticks and "64 MiB" in ticks
    line = fig.axes[0].lines[0]  # SSB stream: median in µs at each size
    ssb = sweep.summary.query("metric == 'send_time_ns' and layout == 'SSB' and access == 'stream'")
    assert line.get_color() == "black" and line.get_label() == "SSB"
    np.testing.assert_allclose(line.get_ydata(), ssb.sort_values("size_bytes")["median"] * 1e-3)
    assert "NVIDIA H200" in fig.get_suptitle() and "vm" in fig.get_suptitle()


def test_send_time_needs_one_run(sweep, timeline):
    with pytest.raises(UsageError, match="several steps"):
        plots.send_time(load([RUNS / "h200-interference-sweep.jsonl.gz", RUNS / "h200-interference-timeline.jsonl.gz"]))
    with pytest.raises(UsageError, match="no interference"):
        plots.send_time(sweep, send_mode="isend")
    with pytest.raises(UsageError):
        plots.send_time(sweep, stat="mode")


def test_ratio_to_ssb(sweep, tmp_path):
    fig = plots.ratio_to_ssb(sweep, path=tmp_path / "ratio.png")
    _saved(fig, tmp_path / "ratio.png")
    assert [len(ax.lines) for ax in fig.axes] == [4, 4]  # PSB, PCB, P2AB and the line at 1
    one = [ln for ln in fig.axes[0].lines if ln.get_label() == "SSB"][0]
    assert list(one.get_ydata()) == [1.0, 1.0]
    psb = [ln for ln in fig.axes[0].lines if ln.get_label() == "PSB"][0]
    s = sweep.summary.query("metric == 'send_time_ns' and access == 'stream'")
    expected = (
        s[s["layout"] == "PSB"].set_index("size_bytes")["median"]
        / s[s["layout"] == "SSB"].set_index("size_bytes")["median"]
    ).sort_index()
    np.testing.assert_allclose(psb.get_ydata(), expected.to_numpy())


def test_writer_timeline(timeline, sweep, tmp_path):
    fig = plots.writer_timeline(timeline, 1048576, "PSB", "stream", path=tmp_path / "tl.png")
    _saved(fig, tmp_path / "tl.png")
    assert len(fig.axes) == 1 and len(fig.axes[0].patches) == 3 * 10
    assert "of 10 samples" in fig.get_suptitle()
    with pytest.raises(UsageError, match="no writer_timeline"):
        plots.writer_timeline(sweep, 1024, "PSB", "stream")
    with pytest.raises(UsageError, match="no interference point"):
        plots.writer_timeline(timeline, 3, "PSB", "stream")


def test_notify_table_is_table_1_from_the_handover_records(handover_file):
    records = jsonl_records(handover_file)[1:]
    t = data.notify_table(load(handover_file))
    assert list(t.columns) == ["cpu", "gpu", "cpu pair", "gpu pair", "cpu timer", "gpu timer"]
    assert list(t.index) == ["volatile:relaxed", "acqrel:acqrel"]
    for r in records:  # the records' own numbers, raw floats: nothing worked out again
        order = f"{r['setup']['cpu_order']}:{r['setup']['gpu_order']}"
        assert t.loc[order, r["side"]] == r["pair_beyond_timer_ns"]
        assert t.loc[order, f"{r['side']} pair"] == r["pair_ns"]["median"]
        assert t.loc[order, f"{r['side']} timer"] == r["timer_cost_ns"]["median"]
    assert t.attrs == {"placement": "pinned", "spacing": "line"}


def test_the_loop_table_is_the_overhead_records(notify):
    t = data.loop_table(notify)
    assert list(t.columns) == ["cpu", "cpu, gpu polling", "gpu", "gpu, cpu polling"]
    assert list(t.index) == [
        "volatile:relaxed",
        "volatile:volatile",
        "relaxed:relaxed",
        "acqrel:acqrel",
        "fence:fence",
        "volatile:fence",
    ]
    first = notify.records[1]  # cpu, uncontended, volatile:relaxed: raw float, not rounded
    assert t.loc["volatile:relaxed", "cpu"] == first["ns_per_op"]["median"]
    assert t.loc["fence:fence", "gpu, cpu polling"] == pytest.approx(1751.55, abs=0.01)
    assert t.attrs == {"placement": "pinned", "spacing": "line"}
    with pytest.raises(UsageError, match="no notify handover records"):
        data.notify_table(notify)  # the committed run predates the handover part: no Table 1 from its loop


def test_roundtrip_and_mechanism_tables(notify):
    t = data.roundtrip_table(notify)
    assert t.shape == (6, 6)
    assert t.loc[("acqrel:acqrel", "pinned", "line"), ("cpu-gpu-cpu", "median")] == pytest.approx(2979.0476, abs=1e-3)
    assert t.loc[("fence:fence", "pinned", "line"), ("gpu-cpu-gpu", "p10")] == pytest.approx(1727.98, abs=0.01)
    placed = data.roundtrip_table(load(RUNS / "h200-notify-placement.jsonl.gz"))
    assert placed.shape == (12, 6)
    assert set(placed.index.get_level_values("spacing")) == {"same-line", "line", "page"}
    m = data.mechanism_table(notify)
    assert len(m) == 12 and (m["status"] == "ok").all()
    assert np.isnan(m.loc["pinned-flag-volatile", "go_call_median"])
    assert m.loc["stream-wait-value", "go_call_median"] == pytest.approx(23.8095, abs=1e-3)
    assert m.loc["launch+host-callback", "median"] == pytest.approx(20926.19, abs=0.01)


def test_roundtrip_plot(notify, tmp_path):
    fig = plots.roundtrip(notify, path=tmp_path / "rt.png")
    _saved(fig, tmp_path / "rt.png")
    ax = fig.axes[0]
    assert len(ax.patches) == 12  # 6 order pairs x 2 directions
    assert "µs" in ax.get_ylabel()
    assert [t.get_text() for t in ax.get_xticklabels()][0] == "volatile:relaxed"


def fig_scale(fig) -> str:
    return fig.axes[0].get_yscale()


def _one_slow(records, pick, factor=1000):
    """The records with the samples of the first one pick(record) accepts made `factor` times slower."""
    out = [{k: v for k, v in r.items() if not k.startswith("_")} for r in records]
    slow = next(r for r in out if pick(r))
    slow["samples"] = {**slow["samples"], "values": [v * factor for v in slow["samples"]["values"]]}
    return out


def test_roundtrip_plot_turns_log_when_one_setup_is_an_outlier(notify, tmp_path):
    # On a loaded machine one order pair's round trips took 1000x longer (12 ms, not 2 us).
    assert fig_scale(plots.roundtrip(notify)) == "linear"  # the committed run: every box is readable
    rt = [r for r in notify.records if r["record"] in ("header", "roundtrip")]
    slow = _one_slow(rt, lambda r: r["record"] == "roundtrip" and r["setup"]["cpu_order"] == "fence")
    fig = plots.roundtrip(load(write_jsonl(tmp_path / "slow.jsonl", slow)))
    ax = fig.axes[0]
    assert ax.get_yscale() == "log" and "log" in ax.get_ylabel()
    low, high = ax.get_ylim()
    assert low < 2.3 and high > 2000  # the 2 us boxes and the 2 ms one both inside the axis


def test_ratio_plot_turns_log_with_one_outlier(sweep, tmp_path):
    assert fig_scale(plots.ratio_to_ssb(sweep)) == "linear"
    records = [{k: v for k, v in r.items() if not k.startswith("_")} for r in sweep.records]
    for r in records:  # one PSB point 1000x slower than its SSB
        if r["record"] == "point" and r["layout"] == "PSB" and r["size_bytes"] == 1024 and r["access"] == "stream":
            r["send_time_ns"] = {**r["send_time_ns"], "median": r["send_time_ns"]["median"] * 1000}
            r["ratio_to_ssb_median"] *= 1000  # as the probe writes it: median ÷ SSB median (no rounds)
    slow = load(write_jsonl(tmp_path / "slow.jsonl", records))
    fig = plots.ratio_to_ssb(slow)
    assert fig_scale(fig) == "log"
    low, high = fig.axes[0].get_ylim()
    assert low < 1 < 1000 < high  # the line at 1 and the outlier both shown, on a log axis


def test_slowdown_plots_turn_log_with_one_outlier(tmp_path):
    matrix = load(RUNS / "h200x2-load" / "matrix.jsonl.gz")
    assert fig_scale(plots.slowdown_vs_traffic(matrix)) == "linear"
    records = [{k: v for k, v in r.items() if not k.startswith("_")} for r in matrix.records]
    shown = load_points(matrix)  # the layout and access the plots show by default
    poll = shown[(shown["load_kind"] == "poll") & (shown["size_bytes"] == 1024) & (shown["load_rate"] == "1")]
    point = records[int(poll["record_ids"].iloc[0][0])]  # drawn by both plots (slowdown_vs_gpus: full rate only)
    point["send_time_ns"] = {**point["send_time_ns"], "median": point["send_time_ns"]["median"] * 1000}
    for name in ("ratio_to_ssb_median", "ratio_to_ssb_ci95"):  # the paired ratio and its interval, 1000x too
        value = point.get(name)
        point[name] = [v * 1000 for v in value] if isinstance(value, list) else value * 1000 if value else value
    slow = load(write_jsonl(tmp_path / "slow.jsonl", records))
    for fig in (plots.slowdown_vs_traffic(slow), plots.slowdown_vs_gpus(slow)):
        assert all(ax.get_yscale() == "log" for ax in fig.axes) and "log" in fig.axes[0].get_ylabel()


def test_mechanisms_plot_with_skipped(notify, tmp_path, notify_header):
    fig = plots.mechanisms(notify, path=tmp_path / "mech.png")
    _saved(fig, tmp_path / "mech.png", categorical=("mechanism",))
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and len(ax.patches) == 12
    ok = dict(notify.records[37])  # first mechanism record (pinned-flag-volatile)
    assert ok["record"] == "mechanism"
    skipped = skipped_mechanism("no kernel launches on the host backend")
    path = write_jsonl(tmp_path / "n.jsonl", [notify_header, {k: v for k, v in ok.items() if k[0] != "_"}, skipped])
    fig = plots.mechanisms(load(path), path=tmp_path / "mech2.png")
    ax = fig.axes[0]
    assert len(ax.patches) == 1  # one row: the skipped mechanism is named in the note, not an empty row
    assert [t.get_text() for t in ax.get_yticklabels()] == ["pinned-flag-volatile"]
    assert [t.get_text() for t in ax.texts] == ["Skipped: launch+device-sync (no kernel launches on the host backend)."]


def test_clock_plot(tmp_path):
    r = load(RUNS / "h200-clock.jsonl")
    fig = plots.clock(r, path=tmp_path / "clock.png")
    _saved(fig, tmp_path / "clock.png")
    assert len(fig.axes) == 2
    assert "-5.778 ppm" in fig.get_suptitle() and "848 ns" in fig.get_suptitle()
    used = [ln for ln in fig.axes[0].lines if ln.get_label() == "used in the fit"][0]
    assert len(used.get_xdata()) == 600


TWO_H200 = RUNS / "h200x2-characterize-default"  # characterize on two H200s: notify and clock on a rank per GPU


def test_clock_plot_of_two_gpus(tmp_path):
    """One clock fit per GPU: a row of the two panels per GPU, titled with its rank, PCI address, drift and
    precision, each the same panels as that GPU's own figure."""
    r = load(TWO_H200 / "clock.jsonl.gz")
    fits = {f["rank"]: f for f in jsonl_records(TWO_H200 / "clock.jsonl.gz") if f["record"] == "clock_fit"}
    fig = plots.clock(r, path=tmp_path / "clock2.png")
    _saved(fig, tmp_path / "clock2.png")
    assert len(fig.axes) == 4 and fig.get_suptitle().startswith("clock sync of 2 GPUs: ")
    assert [sub.get_suptitle() for sub in fig.subfigs] == [
        f"GPU {g} ({pci}): drift {fits[g]['drift_ppm']:.3f} ppm, precision {fits[g]['precision_ns']:.0f} ns"
        for g, pci in ((0, "0000:00:06.0"), (1, "0000:00:07.0"))
    ]

    def used(ax):
        return [ln for ln in ax.lines if ln.get_label() == "used in the fit"][0].get_ydata()

    for g in (0, 1):
        alone = plots.clock(r.only_rank(g))
        assert len(alone.axes) == 2 and f"drift {fits[g]['drift_ppm']:.3f} ppm" in alone.get_suptitle()
        assert np.array_equal(used(fig.axes[2 * g]), used(alone.axes[0]))


def test_clock_plot_refuses_fits_of_two_runs():
    with pytest.raises(UsageError, match="3 clock fits of 2 runs"):
        plots.clock(load([RUNS / "h200-clock.jsonl", TWO_H200 / "clock.jsonl.gz"]))


def test_roundtrip_plot_of_two_gpus_is_the_lowest_ranks_as_its_table():
    """Two GPUs' exchanges are never pooled into one box: the plot, like roundtrip_table, is rank 0's."""
    r = load(TWO_H200 / "notify.jsonl.gz")

    def boxes(fig):
        return [tuple(ln.get_ydata()) for ln in fig.axes[0].lines]

    assert boxes(plots.roundtrip(r)) == boxes(plots.roundtrip(r.only_rank(0)))
    assert boxes(plots.roundtrip(r)) != boxes(plots.roundtrip(r.only_rank(1)))
    assert data.roundtrip_table(r).equals(data.roundtrip_table(r.only_rank(0)))


def test_compare(sweep, timeline, notify, tmp_path):
    fig = plots.compare(sweep, timeline, labels=("sweep", "short"), path=tmp_path / "cmp.png")
    _saved(fig, tmp_path / "cmp.png")
    assert len(fig.axes) == 4
    top = fig.axes[0]
    assert sum(ln.get_linestyle() == "--" for ln in top.lines) == 4
    assert "short ÷ sweep" in fig.axes[2].get_ylabel()
    with pytest.raises(UsageError, match="no interference"):
        plots.compare(notify, sweep)


def test_compare_table(sweep, timeline, notify):
    a = load([RUNS / "h200-notify.jsonl.gz", RUNS / "h200-clock.jsonl", RUNS / "h200-interference-sweep.jsonl.gz"])
    b = load(
        [RUNS / "h200-notify.jsonl.gz", RUNS / "h200-interference-timeline.jsonl.gz", RUNS / "h200-bandwidth.jsonl"]
    )
    t = data.compare_table(a, b, labels=("sweep", "short"))
    assert list(t.columns) == ["unit", "sweep", "short", "ratio"]
    rt = t.loc["notify round trip cpu-gpu-cpu volatile:relaxed"]
    assert rt["sweep"] == rt["short"] == notify.records[5]["roundtrip_ns"]["median"] and rt["ratio"] == 1.0
    assert "clock drift" not in t.index and not any("bandwidth" in q for q in t.index)  # only in one of them
    q = "interference PSB stream ratio_to_ssb at 1 MiB"  # the largest size both swept
    s = sweep.summary.query("metric == 'send_time_ns' and access == 'stream' and size_bytes == 1048576")
    expected = s.loc[s["layout"] == "PSB", "median"].iloc[0] / s.loc[s["layout"] == "SSB", "median"].iloc[0]
    assert t.loc[q, "sweep"] == pytest.approx(expected, rel=1e-12)
    assert len([i for i in t.index if i.startswith("interference")]) == 6


def test_no_pyplot_in_the_plotting_modules_and_no_matplotlib_in_the_tables():
    package = REPO / "pybindings" / "hetprobe"
    plotting = sorted((package / "plots").glob("*.py"))
    assert len(plotting) >= 7
    for path in plotting + sorted((package / "data").glob("*.py")):
        text = path.read_text()
        assert "pyplot" not in text.replace("no pyplot", "") and "plt." not in text, path.name
    for path in sorted((package / "data").glob("*.py")):  # the tables only compute: hetprobe.plots draws
        assert "matplotlib" not in path.read_text(), path.name


@pytest.mark.parametrize("name", plots.MOVED_TABLES)
def test_the_tables_old_names_in_plots_warn_and_give_the_data_ones(name):
    with pytest.warns(DeprecationWarning, match=rf"hetprobe\.plots\.{name} is deprecated: .*hetprobe\.data\.{name}"):
        old = getattr(plots, name)
    assert old is getattr(data, name) and name not in plots.__all__


def test_plots_names_nothing_else_that_it_does_not_have():
    with pytest.raises(AttributeError, match="has no attribute 'no_such_table'"):
        plots.no_such_table  # noqa: B018
    assert all(callable(getattr(plots, name)) for name in plots.__all__)


# --- 95% intervals (files measured in rounds) ---------------------------------------------------

ROUNDS = RUNS / "h100-rounds"


@pytest.fixture(scope="module")
def rounds():
    return load(ROUNDS / "interference-1.jsonl.gz")


def _bars(ax) -> list[tuple[float, float, float]]:
    """(x, low, high) of each error bar drawn on an axis (errorbar's LineCollection segments)."""
    out = []
    for c in ax.collections:
        if isinstance(c, LineCollection):
            out += [(s[0][0], min(s[0][1], s[1][1]), max(s[0][1], s[1][1])) for s in c.get_segments()]
    return out


def _band(ax):
    """The shaded "no effect" margin's (low, high), or None."""
    for p in ax.patches:
        if p.get_label().startswith("no effect"):
            ys = [y for _, y in p.get_path().transformed(p.get_patch_transform()).vertices]
            return min(ys), max(ys)
    return None


def _cis(path, kind="write"):
    """{size: (ratio_to_ssb_median, low, high)} of a file's P2AB points of one load kind, read independently."""
    return {
        r["size_bytes"]: (r["ratio_to_ssb_median"], *r["ratio_to_ssb_ci95"])
        for r in jsonl_records(path)
        if r["record"] == "point" and r["layout"] == "P2AB" and r["load_kind"] == kind
    }


def test_ratio_to_ssb_draws_the_intervals(rounds, tmp_path):
    fig = plots.ratio_to_ssb(rounds, path=tmp_path / "ratio.png")
    _saved(fig, tmp_path / "ratio.png")
    ax = fig.axes[0]
    expected = _cis(ROUNDS / "interference-1.jsonl.gz")  # the write load, the default
    line = [ln for ln in ax.lines if ln.get_label() == "P2AB"][0]
    np.testing.assert_allclose(line.get_ydata(), [expected[s][0] for s in sorted(expected)])  # the paired ratio
    bars = sorted(_bars(ax))
    assert len(bars) == len(expected)
    for (x, low, high), size in zip(bars, sorted(expected)):
        assert x == pytest.approx(size) and (low, high) == pytest.approx(expected[size][1:])
    assert _band(ax) == pytest.approx((0.95, 1.05))
    assert fig.axes[-1].get_legend().get_title().get_text() == "bars: 95% CI over rounds"
    assert "median over rounds" in ax.get_ylabel()


def test_old_files_draw_no_bars_but_the_margin(sweep):
    for fig in (plots.ratio_to_ssb(sweep), plots.slowdown_vs_traffic(load(RUNS / "h200x2-load" / "matrix.jsonl.gz"))):
        assert all(not _bars(ax) for ax in fig.axes)
        assert all(_band(ax) == pytest.approx((0.95, 1.05)) for ax in fig.axes)


def test_load_plots_draw_the_intervals(rounds, tmp_path):
    fig = plots.slowdown_vs_traffic(rounds, path=tmp_path / "traffic.png")
    _saved(fig, tmp_path / "traffic.png")
    for kind in ("write", "read", "poll"):
        expected = _cis(ROUNDS / "interference-1.jsonl.gz", kind)
        for ax, size in zip(fig.axes, sorted(expected)):
            assert len(_bars(ax)) == 3 and _band(ax) is not None
            assert (expected[size][1], expected[size][2]) in [pytest.approx(b[1:]) for b in _bars(ax)]
    fig = plots.slowdown_vs_gpus(rounds, path=tmp_path / "gpus.png")
    _saved(fig, tmp_path / "gpus.png")
    write = _cis(ROUNDS / "interference-1.jsonl.gz")
    for ax, size in zip(fig.axes, sorted(write)):
        assert len(_bars(ax)) == 3  # write, read and poll from one GPU; none at 0 GPUs (SSB)
        line = [ln for ln in ax.lines if ln.get_label() == "write"][0]
        assert line.get_xdata()[0] == 0 and line.get_ydata()[1] == pytest.approx(write[size][0])
    legend = fig.axes[1].get_legend()  # the top right panel's (two panels to a row)
    assert legend.get_title().get_text() == "bars: 95% CI over rounds"
    assert legend.get_bbox_to_anchor().x0 > fig.axes[1].get_window_extent().x1  # beside the panels


def test_the_ratio_plot_draws_launches_pooled():
    """Three launches of one command: each point is drawn at the ratio and interval C++ pooled over the
    launches (Results.interference_ratios), never at one launch's."""
    three = load([ROUNDS / f"interference-{k}.jsonl.gz" for k in (1, 2, 3)])
    pooled = three.interference_ratios()
    ax = plots.ratio_to_ssb(three).axes[0]
    points = interference_points(three)  # the load drawn: write from one GPU at full rate
    shown = points[(points["layout"] != "SSB") & (points["access"] == points["access"].iloc[0])]
    assert (shown["launches"] == 3).all() and shown["ratio_to_ssb_ci95_low"].notna().all()
    key = ["size_bytes", "layout", "access", "load_kind", "load_gpus", "load_rate"]
    same = shown.merge(pooled, on=key, suffixes=("", "_pooled"))
    assert len(same) == len(shown) and (same["ratio_to_ssb_ci95_low"] == same["ratio_to_ssb_ci95_low_pooled"]).all()
    drawn = sorted((round(low, 9), round(high, 9)) for _, low, high in _bars(ax))
    assert drawn == sorted(zip(shown["ratio_to_ssb_ci95_low"].round(9), shown["ratio_to_ssb_ci95_high"].round(9)))
    one = load(ROUNDS / "interference-1.jsonl.gz").interference_ratios()
    assert not set(drawn) & set(zip(one["ratio_to_ssb_ci95_low"].round(9), one["ratio_to_ssb_ci95_high"].round(9)))


def test_ratios_side_by_side(tmp_path):
    rows = pd.concat(
        [data.ratio_rows(load(ROUNDS / f"interference-{k}.jsonl.gz"), f"launch {k}") for k in (1, 2, 3)],
        ignore_index=True,
    )
    first = rows[rows["label"] == "launch 1"].set_index(["size_bytes", "load"])
    for size, (ratio, low, high) in _cis(ROUNDS / "interference-1.jsonl.gz", "poll").items():
        assert tuple(first.loc[(size, "poll"), ["ratio_to_ssb", "ci_low", "ci_high"]]) == pytest.approx(
            (ratio, low, high)
        )
    plain = pd.DataFrame(  # rows from elsewhere, one without an interval: a marker, no bar
        {"label": ["other"] * 2, "size_bytes": [1024] * 2, "load": ["write", "poll"], "ratio_to_ssb": [1.5, 2.0]}
    ).assign(ci_low=[1.2, np.nan], ci_high=[1.8, np.nan])
    fig = plots.ratios_side_by_side(pd.concat([rows, plain]), path=tmp_path / "side.png")
    _saved(fig, tmp_path / "side.png")
    assert [ax.get_title() for ax in fig.axes] == ["1 KiB", "64 KiB", "1 MiB", "16 MiB"]
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["write", "read", "poll"]
    assert len(_bars(fig.axes[0])) == 3 * 3 + 1 and len(_bars(fig.axes[1])) == 3 * 3
    assert all(_band(ax) is not None for ax in fig.axes)
    with pytest.raises(UsageError, match="missing"):
        plots.ratios_side_by_side(rows.drop(columns="ci_low"))
    with pytest.raises(UsageError, match="more than once"):
        plots.ratios_side_by_side(rows.assign(label="one"))
    layouts = data.ratio_rows(load(RUNS / "h200-interference-sweep.jsonl.gz"))  # several layouts: named in load
    assert "PCB stream write" in set(layouts["load"]) and layouts["ci_low"].isna().all()
    plots.ratios_side_by_side(layouts, sizes=[1024])
