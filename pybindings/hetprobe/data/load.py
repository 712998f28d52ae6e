"""Read hetprobe results files (JSON Lines, docs/results-schema.md) into pandas DataFrames.

    >>> r = load("notebooks/data")                    # every *.jsonl(.gz) there (+ topology.json)
    >>> r.probe("interference").summary.query("metric == 'send_time_ns'")

Also reads a Google Benchmark JSON file (hetprobe-micro) as probe "micro", and a `hetprobe topo
--json` file as the topology.
"""

from __future__ import annotations

import json
import os
import warnings
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from ..errors import ResultsFileError, UsageError
from . import record_rows, record_types
from .fields import Malformed, json_type, need, opt
from .frames import STATS
from .jsonl import bounded_bytes, read_jsonl, results_files
from .paths import FileKind, file_kind, path_argument
from .results import Results

SCHEMA = "hetprobe.results"


class TruncatedResultsWarning(UserWarning):
    """A results file ended in an incomplete line (a killed run), which was ignored."""


class UnknownRecordWarning(UserWarning):
    """Records of a type no reader of this hetprobe knows (data/record_types.py): kept in Results.records, in
    no DataFrame."""


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
    try:
        return [header] + [_micro_record(b) for b in doc.get("benchmarks") or []]
    except Malformed as e:
        raise ResultsFileError(f"{path}: {e} (a Google Benchmark result)") from None


_NS_PER = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def _micro_record(benchmark) -> dict:
    """One Google Benchmark result as a micro benchmark record (results.schema.json's micro_benchmark):
    its real time in ns as the median of a Summary of its iterations; Malformed naming a field it lacks."""
    if not isinstance(benchmark, dict):
        raise Malformed("benchmarks[]", f"expected an object, got {json_type(benchmark)}")
    out = {"record": "benchmark", "probe": "micro", **benchmark}
    scale = _NS_PER.get(opt(benchmark, "time_unit", "string", "ns"))
    if scale is None:
        raise Malformed("time_unit", f"unknown unit {benchmark.get('time_unit')!r} (ns, us, ms, s)")
    summary = {k: None for k in STATS}
    summary.update(n=opt(benchmark, "iterations", "integer", 0), median=need(benchmark, "real_time", "number") * scale)
    out["real_time_ns"] = summary
    return out


def _read_json(path):
    """("micro", records) or ("topology", dict) for a .json file."""
    try:
        doc = json.loads(bounded_bytes(path))
    except ValueError as e:
        raise ResultsFileError(f"{path}: invalid JSON ({e})") from None
    if isinstance(doc, dict) and isinstance(doc.get("benchmarks"), list) and "context" in doc:
        return "micro", _micro_records(path, doc)
    if isinstance(doc, dict) and ({"packages", "numa_nodes", "pus"} <= doc.keys()):
        return "topology", doc
    raise ResultsFileError(f"{path}: neither Google Benchmark JSON nor `hetprobe topo --json` output")


def _expand(path_or_paths, recursive: bool) -> list[Path]:
    """Files to read, in order: a directory gives its results files (*.jsonl, *.jsonl.gz) sorted by
    name, then its topology.json."""
    if isinstance(path_or_paths, (str, os.PathLike)):
        items = [path_or_paths]
    elif isinstance(path_or_paths, Iterable) and not isinstance(path_or_paths, (bytes, dict)):
        items = list(path_or_paths)
    else:
        raise UsageError(
            f"path_or_paths: expected a path or a list of paths, got {type(path_or_paths).__name__} {path_or_paths!r}"
        )
    if not items:
        raise UsageError("no results file or directory given")
    files = []
    for item in items:
        p = Path(path_argument(item, "path_or_paths"))
        if p.is_dir():
            found = results_files(p, recursive)
            topo = sorted(p.rglob("topology.json") if recursive else p.glob("topology.json"))
            if not found and not topo:
                raise UsageError(f"{p}: directory holds no results files (*.jsonl, *.jsonl.gz)")
            files += found + [t for t in topo if t.is_file()]  # _read_file names a results name that is no file
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
    if (kind := file_kind(path)) != FileKind.REGULAR:  # before any open: a FIFO would block it
        raise ResultsFileError(f"{name}: is {kind or 'gone'}, not a regular file")
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
    unknown = Counter(record_types.record_type(r) for r in records if record_types.unknown_type(r))
    if unknown:
        warnings.warn(
            "records of a type hetprobe.load does not read, kept in .records only: "
            + ", ".join(f"{count} {probe} {record}" for (probe, record), count in sorted(unknown.items())),
            UnknownRecordWarning,
            stacklevel=2,
        )
    if truncated:
        warnings.warn(
            "ignored an incomplete last line (killed run?) in: " + ", ".join(truncated),
            TruncatedResultsWarning,
            stacklevel=2,
        )
    topology = topology_file or next(
        (r["topology"] for r in records if r.get("record") == "header" and isinstance(r.get("topology"), dict)), None
    )
    return Results.from_rows(records, frames, files, truncated, topology=topology, unreadable=unreadable, _lines=lines)


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
                header_rows.append(record_rows.header_row(rec))
                continue
            converted = record_rows.convert(rec, header, first_id + offset)
        except Malformed as e:
            raise ResultsFileError(f"{where}: {e} (a {what})") from None
        except (KeyError, TypeError, ValueError, AttributeError) as e:  # a check data.fields does not make yet
            raise ResultsFileError(f"{where}: {what} is malformed ({type(e).__name__}: {e})") from None
        if converted is None:  # read elsewhere, or unknown (record_types.py): kept in records only
            continue
        base, rows, sample_chunks = converted
        for metric, unit, stats, extras in rows:
            summary_rows.append({**base, "metric": metric, "unit": unit, **stats, **extras})
        for metric, unit, values in sample_chunks:
            chunks.append(({**base, "metric": metric, "unit": unit}, values))
