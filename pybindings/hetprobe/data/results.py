"""The Results of hetprobe.load: every record as read, the headers, summary and samples frames, and
the views and tables built from them (a probe's, a rank's, the load GPUs, the pooled ratios, the
warnings, the clock's samples)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import UsageError
from . import frames, launches
from .clock import clock_samples as _clock_samples
from .jsonl import is_results_file


@dataclass(repr=False)
class Results:
    """Everything read from one or more results files.

    records: every record as read, each with "_file" (str) and "_segment" (int: global segment
    index, one per header) added. headers / summary / samples: DataFrames (columns in
    hetprobe.data.frames; times in ns, bandwidths in GB/s, the unit column says which).
    """

    records: list
    headers: pd.DataFrame
    summary: pd.DataFrame
    samples: pd.DataFrame
    files: list
    truncated: list
    topology: dict | None = None
    unreadable: list = field(default_factory=list)  # (file, why) of files load(errors="skip") left out
    _lines: list = field(default_factory=list)  # the raw line of each record (None: not from JSON Lines)
    _aggregates: list | None = None  # C++'s interference aggregates of these records, made once (interference_ratios)

    @classmethod
    def from_rows(cls, records: list, rows: tuple[list, list, list], files: list, truncated: list, **rest) -> Results:
        """Results of `records` and the rows converted from them (header rows, summary rows, sample
        chunks: hetprobe.data.record_rows'), made into the DataFrames; `rest`: the fields after truncated."""
        headers, summary, samples = frames.dataframes(rows)
        return cls(records, headers, summary, samples, files, truncated, **rest)

    @classmethod
    def empty(cls) -> Results:
        """Results of no file (a run directory whose probes left nothing readable)."""
        return cls.from_rows([], ([], [], []), [], [])

    def probe(self, name: str) -> Results:
        """The same results restricted to one probe ("interference", "bandwidth", "notify", "clock", "micro")."""
        keep = [i for i, r in enumerate(self.records) if r.get("probe") == name]
        return self._subset(keep, self.headers["probe"] == name, list(self.files))

    def only_files(self, *names: str) -> Results:
        """The same results restricted to the records of files with one of these names (no folder)."""
        keep = [i for i, r in enumerate(self.records) if os.path.basename(r.get("_file", "")) in names]
        files = {self.records[i]["_file"] for i in keep}
        return self._subset(keep, self.headers["file"].isin(files), [f for f in self.files if f in files])

    def without_files(self, *names: str) -> Results:
        """The same results without the records of files with one of these names (no folder)."""
        keep = [i for i, r in enumerate(self.records) if os.path.basename(r.get("_file", "")) not in names]
        files = {self.records[i]["_file"] for i in keep} | {f for f in self.files if not is_results_file(f)}
        return self._subset(keep, self.headers["file"].isin(files), [f for f in self.files if f in files])

    def only_rank(self, rank: int) -> Results:
        """The same results with only rank `rank`'s records (a record without a rank is rank 0's) and
        every header: one GPU of a run that measured each GPU on its own rank."""
        keep = [i for i, r in enumerate(self.records) if r.get("record") == "header" or r.get("rank", 0) == rank]
        return self._subset(keep, self.headers["file"].notna(), list(self.files))

    def _subset(self, keep: list, header_rows, files: list) -> Results:
        """Results of the records `keep` (indexes), the headers where `header_rows`, and `files`."""
        new_id = {old: new for new, old in enumerate(keep)}

        def rows(df):
            df = df[df["record_id"].isin(new_id)].reset_index(drop=True)
            df["record_id"] = df["record_id"].map(new_id).astype(np.int64)
            return df

        return Results(
            records=[self.records[i] for i in keep],
            headers=self.headers[header_rows].reset_index(drop=True),
            summary=rows(self.summary),
            samples=rows(self.samples),
            files=files,
            truncated=[f for f in self.truncated if f in files],
            topology=self.topology,
            unreadable=list(self.unreadable),
            _lines=[self._lines[i] for i in keep] if self._lines else [],
        )

    def load_gpus(self) -> pd.DataFrame:
        """One row per interference point, side and load GPU: where the GPU and its buffer are, how its
        load ran (engine, workers), its full, target and achieved rates and its traffic during the sends,
        GB/s (10^9 B/s). Empty for files from before the load kinds."""
        rows = []
        for i, r in enumerate(self.records):
            if r.get("probe") != "interference" or r.get("record") != "point" or not isinstance(r.get("load"), dict):
                continue
            # files from before the load kinds gain their key on reading (C++'s upgrade)
            kind, gpus, rate = r["load_kind"], r["load_gpus"], r.get("load_rate")
            for side in ("sender", "receiver"):
                for g, d in enumerate((r["load"].get(side) or {}).get("devices") or []):
                    shape = d.get("shape") or {}
                    rows.append(
                        {
                            "file": r["_file"],
                            "segment": r["_segment"],
                            "record_id": i,
                            "size_bytes": r["size_bytes"],
                            "layout": r["layout"],
                            "access": r["access"],
                            "load_kind": kind,
                            "load_gpus": gpus,
                            "load_rate": rate,
                            "side": side,
                            "gpu": g,
                            "ordinal": d.get("ordinal"),
                            "pci_bus_id": d.get("pci_bus_id"),
                            "gpu_numa_nodes": d.get("gpu_numa_nodes"),
                            "buffer_numa_nodes": d.get("buffer_numa_nodes"),
                            "helper_cpus": d.get("helper_cpus"),
                            "engine": shape.get("engine"),
                            "workers": shape.get("workers"),
                            "target_bytes": d.get("target_bytes"),
                            "full_rate_gbs": d.get("full_rate_gbs"),
                            "target_gbs": d.get("target_gbs"),
                            "rate_over_point_gbs": d.get("rate_over_point_gbs"),
                            "traffic_during_send_gbs": d.get("traffic_during_send_gbs"),
                            "unresolved_samples": d.get("unresolved_samples"),
                            "sync_precision_ns": (d.get("clock_sync") or {}).get("precision_ns"),
                        }
                    )
        columns = [
            "file",
            "segment",
            "record_id",
            *launches.POINT_SETUP,
            "side",
            "gpu",
            "ordinal",
            "pci_bus_id",
            "gpu_numa_nodes",
            "buffer_numa_nodes",
            "helper_cpus",
            "engine",
            "workers",
            "target_bytes",
            "full_rate_gbs",
            "target_gbs",
            "rate_over_point_gbs",
            "traffic_during_send_gbs",
            "unresolved_samples",
            "sync_precision_ns",
        ]
        return pd.DataFrame(rows, columns=columns)

    def interference_ratios(self, pooled: bool = True) -> pd.DataFrame:
        """Each interference point's ratio to SSB (paired per round: docs/metrics.md, "Rounds and
        confidence intervals"), one row per series and point key, pooled over the launches that measured
        it: the aggregates of C++'s aggregation stage (docs/results-schema.md, "aggregate"), read here.

        Launches of one measurement (a ``series``) are the runs (segments; a resumed segment continues
        its run) with the same host, backend, device, binding and config but for the seed:
        characterize's interference.jsonl, interference.launch2.jsonl, ..., or those files merged into
        one; ``step`` names the step of its first file ("interference" of interference.launch2.jsonl).
        A point's key: size_bytes, layout, access, load_kind, load_gpus, load_rate, send_mode,
        writer_side and gap (its --gap label).

        ``ratio_to_ssb`` (docs/metrics.md), its ``_ci95_low``/``_ci95_high``, ``_ci95_over`` and ``effect``: with one
        launch, the point's own (its paired ratio, its 95% interval over rounds, what it claims); with
        several, the median of the launches' ratios and from 3 launches on an interval from their
        spread, pooled over the points of the same size and series (base/effect.hpp says why), and its
        effect (none under 3). Files from before the rounds: median ÷ the SSB median of the launch, no
        interval. ``ratio_to_ssb_min``/``_max``: the launches' lowest and highest ratio. ``median_ns``,
        ``ssb_median_ns`` (the SSB median of the same rounds; an SSB row's own median) and
        ``traffic_gbs`` (GB/s the loads moved during the sends): the median over launches, the times
        with their 95% interval (``*_ci95_low``/``_high``; ``*_ci95_over``: "launches" from 3 on, one
        launch's "rounds" or "samples"). SSB rows have no ratio (NaN). ``pooled=False``: one row per
        point and launch instead, with ``launch`` (1, 2, ... within its series), ``file``, ``segment``
        and ``record_id``.
        """
        if self._aggregates is None:
            self._aggregates = launches.aggregates(self)
        aggs = self._aggregates
        return launches.pooled_frame(aggs) if pooled else launches.launch_frame(aggs, self)

    def warnings(self) -> pd.DataFrame:
        """One row per warning the runs recorded: a header's (the run's conditions: CPUs shared,
        high load) and each record's own (its spread). Columns file, segment, record_id, probe,
        record ("header" for the conditions) and warning (a sentence naming the reading and its
        threshold). Empty for files from before warnings were recorded."""
        rows = [
            {
                "file": r["_file"],
                "segment": r["_segment"],
                "record_id": i,
                "probe": r.get("probe"),
                "record": r.get("record"),
                "warning": w,
            }
            for i, r in enumerate(self.records)
            for w in (r.get("warnings") or [])
        ]
        return pd.DataFrame(rows, columns=["file", "segment", "record_id", "probe", "record", "warning"])

    def clock_samples(self) -> pd.DataFrame:
        """One row per clock ping-pong: ticks (uint64), host_ns, half_interval_ns, residual_ns, used (data.clock)."""
        return _clock_samples(self.records, self._segment_headers())

    def header(self, probe: str | None = None) -> dict:
        """The first header record (of `probe`, if given) as a dict, without the private _file/_segment keys."""
        for r in self.records:
            if r.get("record") == "header" and (probe is None or r.get("probe") == probe):
                return {k: v for k, v in r.items() if not k.startswith("_")}
        raise UsageError(f"no header{' of probe ' + repr(probe) if probe else ''} in {self.files}")

    def _segment_headers(self) -> dict:
        return {r["_segment"]: r for r in self.records if r.get("record") == "header"}

    def __repr__(self) -> str:
        probes = sorted(set(self.headers["probe"].dropna())) if len(self.headers) else []
        names = ", ".join(os.path.basename(f) for f in self.files[:4]) + (" ..." if len(self.files) > 4 else "")
        return (
            f"<hetprobe.Results {len(self.files)} file(s) [{names}], probes {probes}, "
            f"{len(self.headers)} segment(s), {len(self.records)} records, {len(self.summary)} summary rows, "
            f"{len(self.samples)} samples{', truncated: ' + str(len(self.truncated)) if self.truncated else ''}>"
        )


def summary_rows(results: Results, record: str, metric: str, probe: str | None = None) -> pd.DataFrame:
    """The summary rows of one record type and metric (of one probe, if given)."""
    s = results.summary
    keep = (s["record"] == record) & (s["metric"] == metric)
    return s[keep & (s["probe"] == probe)] if probe else s[keep]
