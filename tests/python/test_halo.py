"""The halo probe's records in Python: loading, the table and the plots, on the committed H200 x2 run
and on a fresh host-backend run through mpirun."""

import json

import pytest
from conftest import DATA

import hetprobe


def rank0_halo(path):
    return [json.loads(line) for line in open(path) if '"record":"halo"' in line and '"rank":0' in line]


def test_the_table_matches_the_records():
    r = hetprobe.load(DATA / "h200x2-halo.jsonl")
    table = hetprobe.plots.halo_table(r)
    records = rank0_halo(DATA / "h200x2-halo.jsonl")
    assert len(table) == len(records) == 3 * 48 and set(table["cube"]) == {200, 400, 800}
    for rec in records:
        row = table[(table["layout"] == rec["layout"]) & (table["setup"] == rec["setup"])].iloc[0]
        assert row["median_us"] == pytest.approx(rec["iteration_ns"]["median"] / 1e3)
        assert row["payload"] == "intact"
        # the thesis's comparison: the fastest baseline of the same layout, send mode and threads
        base = min(
            b["iteration_ns"]["median"]
            for b in records
            if b["variant"] == "baseline"
            and b["layout"] == rec["layout"]
            and b["send"] == rec["send"]
            and b["threads_per_block"] == rec["threads_per_block"]
        )
        assert row["speedup_vs_baseline"] == pytest.approx(base / rec["iteration_ns"]["median"])
    assert (table["model_lower_bound_us"] < table["median_us"]).all()  # a lower bound


def test_halo_samples_are_every_iteration():
    r = hetprobe.load(DATA / "h200x2-halo.jsonl")
    samples = r.samples[(r.samples["probe"] == "halo") & (r.samples["metric"] == "iteration_ns")]
    assert len(samples) == 2 * 144 * 50  # 2 ranks x (3 cubes x 48 setups) x 50 iterations


def test_plots_of_the_committed_run(tmp_path):
    r = hetprobe.load(DATA / "h200x2-halo.jsonl")
    fig = hetprobe.plots.halo_times(
        r,
        path=tmp_path / "times.png",
        setups=["baseline isend waitall pinned 128t", "notify-stream isend channel pinned 128t"],
    )
    assert len(fig.axes) == 1 and (tmp_path / "times.png").stat().st_size > 10_000
    assert len(fig.axes[0].patches) == 2 * 3  # two setups x three cubes
    rec = next(x for x in rank0_halo(DATA / "h200x2-halo.jsonl") if x["cube"] == 800)
    fig = hetprobe.plots.halo_timeline(
        r, rec["layout"], "notify-stream isend channel pinned 128t", path=tmp_path / "timeline.png"
    )
    assert len(fig.axes[0].get_yticklabels()) == 52  # 26 sends + 26 receives
    with pytest.raises(hetprobe.UsageError):
        hetprobe.plots.halo_timeline(r, rec["layout"], "no-such-variant")
    with pytest.raises(hetprobe.UsageError, match="not kept"):  # only the median iteration's timeline is kept
        hetprobe.plots.halo_timeline(r, rec["layout"], "baseline", iteration=rec["timeline"]["iteration_index"][0] ^ 1)


def test_phases_are_the_median_iterations_critical_path():
    r = hetprobe.load(DATA / "h200x2-halo.jsonl")
    phases = hetprobe.plots.halo_phases(r, setups=["notify-stacked isend channel pinned 128t"])
    assert sorted(phases["cube"]) == [200, 400, 800]
    for rec in rank0_halo(DATA / "h200x2-halo.jsonl"):
        if rec["setup"] != "notify-stacked isend channel pinned 128t":
            continue
        it = rec["timeline"]["iterations"][0]
        row = phases[phases["cube"] == rec["cube"]].iloc[0]
        assert row["total_us"] == pytest.approx(it["total_ns"] / 1e3)
        assert row["last_send_us"] == pytest.approx(max(it["send_ns"]) / 1e3)
        assert row["pack_start_us"] <= row["pack_end_us"] <= row["last_send_us"] <= row["total_us"]
        assert row["largest_bytes"] == max(m["bytes"] for m in rec["unpack"])


def test_a_fresh_host_run_through_mpirun(tmp_path):
    r = hetprobe.run_mpi(
        "halo",
        out=tmp_path / "halo.jsonl",
        device="host",
        cube=40,
        iterations=3,
        warmup=1,
        signal="channel,queue",
        staging="memcpy",
        quiet=True,
    )
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
    # The header's MPI transport: loaded, and halo_table's single_copy column.
    header = r.records[0]
    mechanism = header["mpi"]["transport"]["single_copy"]
    assert r.headers["mpi_single_copy"].tolist() == [mechanism]
    assert table["single_copy"].tolist() == [mechanism] * len(table)
    _merged_mechanisms_compare_with_their_own_baseline(tmp_path / "halo.jsonl", tmp_path / "merged.jsonl")


def _merged_mechanisms_compare_with_their_own_baseline(path, merged):
    """A second segment as if run with another single-copy mechanism, its baseline twice as fast: each
    segment's speed-ups are against its own baseline, not the faster one of the other mechanism."""
    lines = [json.loads(line) for line in open(path)]
    with open(merged, "w") as out:
        for line in lines:
            out.write(json.dumps(line) + "\n")
        for line in lines:
            if line["record"] == "header":
                line["mpi"]["transport"]["single_copy"] = "other"
            if line["record"] == "halo" and line["variant"] == "baseline":
                line["iteration_ns"]["median"] /= 2
            out.write(json.dumps(line) + "\n")
    table = hetprobe.plots.halo_table(hetprobe.load(merged))
    assert len(set(table["single_copy"])) == 2
    for _, rows in table.groupby("single_copy"):
        base = rows[rows["variant"] == "baseline"]["median_us"].iloc[0]
        assert rows["speedup_vs_baseline"].tolist() == pytest.approx((base / rows["median_us"]).tolist())
