"""Read hetprobe results files (JSON Lines, docs/results-schema.md) into pandas DataFrames.

    >>> r = load("notebooks/data")                    # every *.jsonl there (+ topology.json)
    >>> r.probe("interference").summary.query("metric == 'send_time_ns'")

Also reads a Google Benchmark JSON file (hetprobe-micro) as probe "micro", and a `hetprobe topo
--json` file as the topology.
"""

from __future__ import annotations

import json
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import ResultsFileError, UsageError
from . import frames as _frames
from .clock import clock_samples as _clock_samples
from .fields import Malformed
from .paths import file_kind
from .upgrade import upgrade_records

SCHEMA = "hetprobe.results"


class TruncatedResultsWarning(UserWarning):
    """A results file ended in an incomplete line (a killed run), which was ignored."""


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

    @classmethod
    def empty(cls) -> Results:
        """Results of no file (a run directory whose probes left nothing readable)."""
        headers, summary, samples = _frames_of(([], [], []))
        return cls(records=[], headers=headers, summary=summary, samples=samples, files=[], truncated=[])

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
        files = {self.records[i]["_file"] for i in keep} | {f for f in self.files if not f.endswith(".jsonl")}
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
            kind, gpus, rate = _frames.load_key(r)
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
            "size_bytes",
            "layout",
            "access",
            "load_kind",
            "load_gpus",
            "load_rate",
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
        confidence intervals"), one row per point key, pooled over the launches that measured it.

        Launches of one measurement are the runs (segments; a resumed segment continues its run) with
        the same host, backend, device, binding and config but for the seed: characterize's
        interference.jsonl, interference.launch2.jsonl, ..., or those files merged into one (``series``
        numbers each such measurement, ``step`` names its file). A point's key: size_bytes, layout,
        access, load_kind, load_gpus, load_rate, send_mode, writer_side and gap (its --gap label).

        ``ratio``, ``ratio_ci95_low``/``ratio_ci95_high`` and ``effect``: with one launch, the point's own
        (ratio_to_ssb_median, its 95% interval over rounds, what it claims); with several, pooled by
        hetprobe._core.pool_launch_points (the one place that pools): the median of the launches'
        ratios, and from 3 launches on an interval from their spread, pooled over the points of the
        same size and series (base/effect.hpp says why), and its effect (none under 3).
        ``ratio_min``/``ratio_max``: the launches' lowest and highest ratio. ``median_ns``,
        ``ssb_median_ns`` (the SSB median of the same rounds; an SSB row's own median) and
        ``traffic_gbs`` (GB/s the loads moved during the sends): the median over launches.
        SSB rows have no ratio (NaN). ``pooled=False``: one row per point and launch instead, with
        ``launch`` (1, 2, ... in load order within its series), ``file``, ``segment`` and ``record_id``.
        """
        rows = _launch_rows(self)
        return _pool(rows) if pooled else rows

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


_POINT_KEY = [
    "size_bytes",
    "layout",
    "access",
    "load_kind",
    "load_gpus",
    "load_rate",
    "send_mode",
    "writer_side",
    "gap",
]
_LAUNCH_COLUMNS = (
    ["series", "step", "launch", "file", "segment", "record_id", "host", "backend", "device"]
    + _POINT_KEY
    + ["rounds", "reps", "n", "median_ns", "ssb_median_ns", "ratio", "ratio_ci95_low", "ratio_ci95_high", "effect"]
    + ["traffic_gbs", "status"]
)
_POOLED_COLUMNS = (
    ["series", "step", "host", "backend", "device"]
    + _POINT_KEY
    + ["launches", "ratio", "ratio_ci95_low", "ratio_ci95_high", "effect", "ratio_min", "ratio_max"]
    + ["median_ns", "ssb_median_ns", "traffic_gbs", "rounds", "reps", "n", "status", "record_ids", "files"]
)


def _measurement(header: dict) -> str:
    """What a run measured, the same for every launch of one command: host, backend, device, the
    ranks' binding and the config without its seed (each launch draws its own) and host_stream (the
    node's STREAM, measured once: characterize's further launches leave it out)."""
    config = {k: v for k, v in (header.get("config") or {}).items() if k not in ("seed", "host_stream")}
    binding = [(r.get("placement") or {}).get("bind") for r in header.get("ranks") or [] if isinstance(r, dict)]
    device = (header.get("device") or {}).get("name")
    return json.dumps([header.get("host"), header.get("backend"), device, binding, config], sort_keys=True)


def _launch_rows(results: Results) -> pd.DataFrame:
    """Results.interference_ratios(pooled=False)."""
    from .steps import split_launch

    s = results.summary
    points = s[(s["probe"] == "interference") & (s["record"] == "point") & (s["metric"] == "send_time_ns")]
    headers = results._segment_headers()
    started, previous = {}, None  # segment -> the segment its launch began with (a resumed one continues)
    for segment in sorted(headers):
        h = headers[segment]
        resumed = h.get("resumed") and previous is not None and previous[0] == h["_file"]
        started[segment] = previous[1] if resumed else segment
        previous = (h["_file"], started[segment])
    series: dict[str, int] = {}
    launches: dict[int, dict[int, int]] = {}  # series -> {first segment: launch number}
    rows = []
    for p in points.to_dict("records"):
        rec = results.records[int(p["record_id"])]
        key = series.setdefault(_measurement(headers[rec["_segment"]]), len(series))
        numbers = launches.setdefault(key, {})
        launch = numbers.setdefault(started[rec["_segment"]], len(numbers) + 1)
        ci = rec.get("ratio_to_ssb_ci95") or [np.nan, np.nan]
        rows.append(
            {
                "series": key,
                "step": split_launch(p["file"])[0],
                "launch": launch,
                **{k: p[k] for k in ("file", "segment", "record_id", "host", "backend", "device")},
                **{k: p[k] for k in _POINT_KEY if k != "gap"},
                "size_bytes": int(p["size_bytes"]),  # the summary's column is float where other records have none
                "load_gpus": int(p["load_gpus"]),
                "gap": (rec.get("gap") or {}).get("label") or "0",  # files from before --gap: back to back
                "rounds": p["rounds"],
                "reps": p["reps"],
                "n": p["n"],
                "median_ns": p["median"],
                "ssb_median_ns": p["median"] if p["layout"] == "SSB" else p["ssb_send_time_ns_median"],
                "ratio": p["ratio_to_ssb_median"],
                "ratio_ci95_low": float(ci[0]),
                "ratio_ci95_high": float(ci[1]),
                "effect": p["effect"] if isinstance(p["effect"], str) else None,
                "traffic_gbs": p["traffic_during_send_gbs"],
                "status": p["status"],
            }
        )
    return pd.DataFrame(rows, columns=_LAUNCH_COLUMNS)


def _median(values) -> float:
    """The median over launches of a reading that is not a ratio (times, GB/s); NaN without one."""
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    return float(np.median(x)) if len(x) else np.nan


def _pool(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per series and point key: the launches' ratios pooled (Results.interference_ratios),
    the points of one size of a series together (their launches' variance pooled in
    hetprobe._core.pool_launch_points)."""
    groups = list(rows.groupby(["series"] + _POINT_KEY, sort=False, dropna=False))
    pooled = _pooled_ratios([g for _, g in groups])
    out = []
    for (_, g), pool in zip(groups, pooled):
        first = g.iloc[0]
        row = {k: first[k] for k in ["series", "step", "host", "backend", "device"] + _POINT_KEY}
        row.update(launches=len(g), ratio=np.nan, ratio_ci95_low=np.nan, ratio_ci95_high=np.nan, effect=None)
        row.update(ratio_min=np.nan, ratio_max=np.nan)
        if len(g) == 1:  # one launch: the point's own interval over its rounds stands
            row.update({k: first[k] for k in ("ratio", "ratio_ci95_low", "ratio_ci95_high", "effect")})
            row.update(ratio_min=first["ratio"], ratio_max=first["ratio"])
        elif pool is not None:
            low, high = pool["ci95"] or (np.nan, np.nan)
            row.update(ratio=pool["median"], ratio_ci95_low=low, ratio_ci95_high=high, effect=pool["effect"])
            row.update(ratio_min=pool["min"], ratio_max=pool["max"])
        bad = [s for s in g["status"] if s != "ok"]
        row.update(
            median_ns=_median(g["median_ns"]),
            ssb_median_ns=_median(g["ssb_median_ns"]),
            traffic_gbs=_median(g["traffic_gbs"]),
            rounds=first["rounds"],
            reps=first["reps"],
            n=int(g["n"].sum()),
            status=bad[0] if bad else "ok",
            record_ids=[int(i) for i in g["record_id"]],
            files=list(dict.fromkeys(g["file"])),
        )
        out.append(row)
    pooled = pd.DataFrame(out, columns=_POOLED_COLUMNS)
    return pooled.astype({"size_bytes": np.int64, "load_gpus": np.int64, "launches": np.int64, "n": np.int64})


def _pooled_ratios(groups: list) -> list:
    """pool_launch_points' result for each point (a group of its launches' rows) measured in several
    launches, the points of one series and size pooled together; None for the others."""
    from .. import _core  # the compiled module: the pooling and the effect rule live in base/effect.cpp

    out: list = [None] * len(groups)
    together: dict = {}
    for i, g in enumerate(groups):
        ratios = [float(r) for r in g["ratio"] if np.isfinite(r)]
        if len(g) > 1 and ratios:
            first = g.iloc[0]
            together.setdefault((first["series"], int(first["size_bytes"])), []).append((i, ratios))
    for points in together.values():
        for (i, _), pool in zip(points, _core.pool_launch_points([r for _, r in points])):
            out[i] = pool
    return out


def _parse(line: bytes):
    def reject(name):  # NaN/Infinity are never written, and the C++ reader refuses them
        raise ValueError(name)

    return json.loads(line, parse_constant=reject)


def read_jsonl(path) -> tuple[list[tuple[int, bytes, dict]], bool]:
    """(line number, raw line, record) of each complete record, and whether the tail was incomplete.
    Records of an older schema_version come back in the current form (data/upgrade.py); raw lines as written.

    Same rules as bench/core/results.cpp read_results: unterminated bytes at the end are ignored even if
    they parse; a terminated line that does not parse is ignored only as the last non-blank line;
    any other bad line, or a line that is not an object, raises ResultsFileError.
    """
    data = Path(path).read_bytes()
    lines = data.split(b"\n")
    tail = lines.pop()  # bytes after the last "\n" (b"" when the file ends with one)
    blank = [not ln.strip(b" \t\r") for ln in lines]
    last_nonblank = len(lines) if tail.strip(b" \t\r") else max((i for i, b in enumerate(blank) if not b), default=-1)
    out, truncated = [], bool(tail)
    for i, line in enumerate(lines):
        if blank[i]:
            continue
        try:
            value = _parse(line)
        except ValueError as e:  # json.JSONDecodeError and UnicodeDecodeError are ValueErrors
            if i == last_nonblank:
                truncated = True
                break
            raise ResultsFileError(f"{path}:{i + 1}: invalid JSON in results file ({e})") from None
        if not isinstance(value, dict):
            raise ResultsFileError(f"{path}:{i + 1}: not a JSON object in results file")
        out.append((i + 1, line, value))
    upgrade_records([rec for _, _, rec in out])  # older schema versions read in the current form
    return out, truncated


def _micro_records(path, doc) -> list[dict]:
    """A Google Benchmark JSON document as a header and one "benchmark" record per benchmark."""
    ctx = doc.get("context") or {}
    device = str(ctx.get("hetprobe_device") or "")
    backend = device[device.rfind("(") + 1 : -1] if device.endswith(")") else None
    name = device[: device.rfind("(")].strip() if backend else (device or None)
    header = {
        "record": "header",
        "probe": "micro",
        "host": ctx.get("host_name"),
        "backend": backend,
        "device": {"name": name},
        "start_time_utc": ctx.get("date"),
        "resumed": False,
        "command_line": [ctx["executable"]] if ctx.get("executable") else None,
        "context": ctx,
    }
    return [header] + [{"record": "benchmark", "probe": "micro", **b} for b in doc.get("benchmarks") or []]


def _read_json(path):
    """("micro", records) or ("topology", dict) for a .json file."""
    try:
        doc = json.loads(Path(path).read_bytes())
    except ValueError as e:
        raise ResultsFileError(f"{path}: invalid JSON ({e})") from None
    if isinstance(doc, dict) and isinstance(doc.get("benchmarks"), list) and "context" in doc:
        return "micro", _micro_records(path, doc)
    if isinstance(doc, dict) and ({"packages", "numa_nodes", "pus"} <= doc.keys()):
        return "topology", doc
    raise ResultsFileError(f"{path}: neither Google Benchmark JSON nor `hetprobe topo --json` output")


def _expand(path_or_paths, recursive: bool) -> list[Path]:
    """Files to read, in order: a directory gives its *.jsonl sorted by name, then its topology.json."""
    items = [path_or_paths] if isinstance(path_or_paths, (str, os.PathLike)) else list(path_or_paths)
    if not items:
        raise UsageError("no results file or directory given")
    files = []
    for item in items:
        p = Path(item)
        if p.is_dir():
            found = sorted(p.rglob("*.jsonl") if recursive else p.glob("*.jsonl"))
            topo = sorted(p.rglob("topology.json") if recursive else p.glob("topology.json"))
            if not found and not topo:
                raise UsageError(f"{p}: directory holds no *.jsonl results files")
            files += [f for f in found + topo if f.is_file()]  # a FIFO named *.jsonl would block a read
        elif p.is_file():
            files.append(p)
        elif file_kind(p) is None:
            raise UsageError(f"{p}: no such results file or directory")
        else:
            raise UsageError(f"{p}: is {file_kind(p)}, not a results file or a directory of them")
    return files


def _read_file(path: Path, segment: int) -> tuple[str, object, bool]:
    """("topology", dict, False) or ("records", [(line, raw, record)], cut) of one file, its records
    tagged with _file and _segment (numbered on from `segment`)."""
    name = str(path)
    if path.suffix == ".json":
        kind, content = _read_json(path)
        if kind == "topology":
            return "topology", content, False
        parsed, cut = [(None, None, r) for r in content], False
    else:
        parsed, cut = read_jsonl(path)
        if not parsed:
            raise ResultsFileError(f"{name}: holds no complete record; a results file starts with a header")
    first = parsed[0][2]
    if first.get("record") != "header" or first.get("schema", SCHEMA) != SCHEMA:
        raise ResultsFileError(f"{name}:{parsed[0][0] or 1}: first record is not a {SCHEMA} header")
    for _, _, rec in parsed:
        if rec.get("record") == "header":
            segment += 1
        rec["_file"], rec["_segment"] = name, segment
    return "records", parsed, cut


def load(path_or_paths, recursive: bool = False, errors: str = "raise") -> Results:
    """Read results files, directories of them, or a list of both, into one Results.

    A file with an incomplete last line (a killed run) is read up to it, listed in
    Results.truncated and named in a TruncatedResultsWarning. Raises UsageError for a missing
    path and ResultsFileError for a corrupt or non-hetprobe file (with file, line and field).
    ``errors="skip"``: a file that cannot be read (empty, corrupt, a malformed record) is left out
    and listed with the reason in Results.unreadable instead (a partial run directory).
    """
    if errors not in ("raise", "skip"):
        raise UsageError(f"errors={errors!r}: expected 'raise' or 'skip'")
    records, lines, line_numbers, files, truncated, unreadable, topology_file = [], [], [], [], [], [], None
    frames: tuple[list, list, list] = ([], [], [])
    segment = -1
    for path in _expand(path_or_paths, recursive):
        name = str(path)
        try:
            kind, content, cut = _read_file(path, segment)
            if kind == "topology":
                topology_file = topology_file or content
                files.append(name)
                continue
            own = [rec for _, _, rec in content]
            sizes = tuple(len(f) for f in frames)
            try:
                _convert(own, [n for n, _, _ in content], len(records), frames)
            except ResultsFileError:
                for f, n in zip(frames, sizes):  # this file's rows go; the others stay
                    del f[n:]
                raise
        except (ResultsFileError, OSError) as e:
            if errors == "raise":
                if isinstance(e, OSError):
                    raise ResultsFileError(f"{name}: cannot be read ({e.strerror or e})") from None
                raise
            unreadable.append((name, str(e) if isinstance(e, ResultsFileError) else f"{name}: {e.strerror or e}"))
            continue
        segment = own[-1]["_segment"]
        records += own
        lines += [raw for _, raw, _ in content]
        line_numbers += [n for n, _, _ in content]
        files.append(name)
        if cut:
            truncated.append(name)
    if truncated:
        warnings.warn(
            "ignored an incomplete last line (killed run?) in: " + ", ".join(truncated),
            TruncatedResultsWarning,
            stacklevel=2,
        )
    headers, summary, samples = _frames_of(frames)
    topology = topology_file or next(
        (r["topology"] for r in records if r.get("record") == "header" and isinstance(r.get("topology"), dict)), None
    )
    return Results(
        records=records,
        headers=headers,
        summary=summary,
        samples=samples,
        files=files,
        truncated=truncated,
        topology=topology,
        unreadable=unreadable,
        _lines=lines,
    )


def _convert(records, line_numbers, first_id: int, frames: tuple[list, list, list]) -> None:
    """Appends the header rows, summary rows and sample chunks of `records` (ids from first_id) to
    `frames`; a malformed record raises ResultsFileError naming its file, line and field."""
    header_rows, summary_rows, chunks = frames
    header = {}
    for offset, (rec, number) in enumerate(zip(records, line_numbers)):
        where = f"{rec['_file']}:{number}" if number else rec["_file"]
        what = f"{rec.get('probe')} {rec.get('record')} record"
        try:
            if rec.get("record") == "header":
                header = rec
                header_rows.append(_frames.header_row(rec))
                continue
            converted = _frames.convert(rec, header, first_id + offset)
        except Malformed as e:
            raise ResultsFileError(f"{where}: {e} (a {what})") from None
        except (KeyError, TypeError, ValueError, AttributeError) as e:  # a check data.fields does not make yet
            raise ResultsFileError(f"{where}: {what} is malformed ({type(e).__name__}: {e})") from None
        if converted is None:  # a record type this version does not know: kept in records only
            continue
        base, rows, sample_chunks = converted
        for metric, unit, stats, extras in rows:
            summary_rows.append({**base, "metric": metric, "unit": unit, **stats, **extras})
        for metric, unit, values in sample_chunks:
            chunks.append(({**base, "metric": metric, "unit": unit}, values))


def _frames_of(frames: tuple[list, list, list]):
    header_rows, summary_rows, chunks = frames
    return (
        _frames.frame(_frames.HEADER_COLUMNS, header_rows),
        _frames.frame(_frames.SUMMARY_COLUMNS, summary_rows),
        _frames.sample_frame(chunks),
    )
