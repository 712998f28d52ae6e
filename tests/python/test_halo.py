"""The halo probe's records in Python: loading, the table and the plots, on the committed H200 x2 run
and on a fresh host-backend run through mpirun."""

import json

import pytest

import hetprobe
from conftest import DATA


def rank0_halo(path):
    return [json.loads(line) for line in open(path) if '"record":"halo"' in line and '"rank":0' in line]


def test_the_table_matches_the_records():
    r = hetprobe.load(DATA / "h200x2-halo.jsonl")
    table = hetprobe.plots.halo_table(r)
    records = rank0_halo(DATA / "h200x2-halo.jsonl")
    assert len(table) == len(records) == 6 and set(table["cube"]) == {200, 400, 800}
    for rec in records:
        row = table[(table["layout"] == rec["layout"]) & (table["variant"] == rec["variant"])].iloc[0]
        assert row["median_us"] == pytest.approx(rec["iteration_ns"]["median"] / 1e3)
        assert row["payload"] == "intact"
    base = table[table["variant"] == "baseline"]
    assert (base["speedup_vs_baseline"] == 1).all()
    assert (table["model_lower_bound_us"] < table["median_us"]).all()  # a lower bound


def test_halo_samples_are_every_iteration():
    r = hetprobe.load(DATA / "h200x2-halo.jsonl")
    samples = r.samples[(r.samples["probe"] == "halo") & (r.samples["metric"] == "iteration_ns")]
    assert len(samples) == 2 * 6 * 20  # 2 ranks x (3 cubes x 2 variants) x 20 iterations


def test_plots_of_the_committed_run(tmp_path):
    r = hetprobe.load(DATA / "h200x2-halo.jsonl")
    fig = hetprobe.plots.halo_times(r, path=tmp_path / "times.png")
    assert len(fig.axes) == 1 and (tmp_path / "times.png").stat().st_size > 10_000
    layout = next(rec["layout"] for rec in rank0_halo(DATA / "h200x2-halo.jsonl") if rec["cube"] == 800)
    fig = hetprobe.plots.halo_timeline(r, layout, "notify-stream", path=tmp_path / "timeline.png")
    assert len(fig.axes[0].get_yticklabels()) == 52  # 26 sends + 26 receives
    with pytest.raises(hetprobe.UsageError):
        hetprobe.plots.halo_timeline(r, layout, "no-such-variant")


def test_a_fresh_host_run_through_mpirun(tmp_path):
    r = hetprobe.run_mpi("halo", out=tmp_path / "halo.jsonl", device="host", cube=40, iterations=3, warmup=1,
                         signal="channel,queue", staging="memcpy", quiet=True)
    table = hetprobe.plots.halo_table(r)
    assert sorted(set(table["variant"])) == ["baseline", "notify-stacked", "notify-stream"]
    assert len(table) == 5  # baseline (waitall) + two notify variants x two signals
    assert (table["payload"] == "intact").all() and (table["n"] == 3).all() and (table["staging"] == "memcpy").all()
    base = table[table["variant"] == "baseline"]["median_us"].iloc[0]
    assert table["speedup_vs_baseline"].tolist() == pytest.approx((base / table["median_us"]).tolist())
    layout = table["layout"].iloc[0]
    fig = hetprobe.plots.halo_timeline(r, layout, "notify-stacked isend queue memcpy 128t")
    assert "copy to host done" in [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    fig = hetprobe.plots.halo_times(r, setups=["baseline", "notify-stream isend queue memcpy 128t"])
    assert len(fig.axes[0].patches) == 2  # one bar per setup, one layout
    with pytest.raises(hetprobe.UsageError):
        hetprobe.plots.halo_times(r, setups=["notify-stream isend channel pinned 128t"])
