"""Combine results files (e.g. one per node or per run) into one JSON Lines file.

    hetprobe merge -o all.jsonl [--overwrite] [--summary-csv all.csv] node1/ node2/run.jsonl
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from .errors import ResultsFileError, UsageError
from .load import Results, load


def _same_file(a, b) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def _segments(results: Results):
    """(header line, [record lines]) per segment, in load order, from the raw lines as read."""
    segments = []
    for rec, line in zip(results.records, results._lines):
        if line is None:  # a Google Benchmark file: it has no JSON Lines form
            raise UsageError(f"{rec['_file']}: only JSON Lines results files can be merged into a file")
        if rec.get("record") == "header":
            segments.append((line, []))
        segments[-1][1].append(line)
    return segments


def _write(results: Results, out: Path) -> tuple[int, int]:
    """Writes every segment once (a byte-identical header = the same segment given twice).

    Returns (segments, records) written. The lines are copied as read, so numbers stay exact and
    the private _file/_segment keys never reach the file; truncated tails were already dropped.
    """
    seen, n_segments, n_records = set(), 0, 0
    fd, tmp = tempfile.mkstemp(prefix=out.name + ".", suffix=".tmp", dir=out.parent or ".")
    try:
        os.chmod(tmp, 0o644)  # mkstemp makes it 0600; a results file is for sharing
        with os.fdopen(fd, "wb") as f:
            for header, lines in _segments(results):
                key = header.strip()
                if key in seen:
                    continue
                seen.add(key)
                n_segments += 1
                n_records += len(lines)
                f.writelines(line.rstrip(b"\r") + b"\n" for line in lines)
        os.replace(tmp, out)  # all or nothing: a failed merge leaves no half-written OUT
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return n_segments, n_records


def merge(paths, out=None, overwrite: bool = False) -> Results:
    """Load every results file or directory in `paths`; with `out`, also write them as one file.

    The written file holds every complete record of every input, segment by segment, each segment
    starting with its header; a segment whose header line is identical to one already written (the
    same file given twice) is written once. Refuses (UsageError) to overwrite a non-empty `out`
    unless overwrite=True, and to write over one of the inputs. Returns load(out) when `out` is
    given, else the combined Results in memory.
    """
    return _merge(paths, out, overwrite)[0]


def _merge(paths, out, overwrite):
    """merge(), also returning (segments written, records written, files read)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = list(paths)
    if out is not None:
        out = Path(out)
        if out.is_dir():
            raise UsageError(f"{out} is a directory; give the merged file's name")
        for p in paths:
            if Path(p).is_file() and out.exists() and _same_file(p, out):
                raise UsageError(f"{out} is one of the inputs; write the merged file elsewhere")
        if out.exists() and out.stat().st_size > 0 and not overwrite:
            raise UsageError(f"{out} exists and is not empty; pass overwrite=True (--overwrite) to replace it")
        if not out.parent.is_dir():
            raise UsageError(f"{out.parent}: no such directory")
    results = load(paths)
    if out is None:
        return results, (len(results.headers), len(results.records), len(results.files))
    if out.exists() and any(_same_file(f, out) for f in results.files):  # found inside an input directory
        raise UsageError(f"{out} is one of the inputs; write the merged file elsewhere")
    n_segments, n_records = _write(results, out)
    return load(out), (n_segments, n_records, len(results.files))


def main(argv=None) -> int:
    """`hetprobe merge`: returns the exit status (0, or 2 for a usage or results-file error)."""
    parser = argparse.ArgumentParser(
        prog="hetprobe merge",
        description="Combine hetprobe results files (JSON Lines) and directories of them into one file.")
    parser.add_argument("inputs", nargs="+", metavar="INPUT", help="results file or directory of *.jsonl")
    parser.add_argument("-o", "--out", required=True, help="merged JSON Lines file to write")
    parser.add_argument("--overwrite", action="store_true", help="replace OUT if it exists")
    parser.add_argument("--summary-csv", metavar="FILE", help="also write the merged summary table as CSV")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse exits on bad options and --help; report the code instead
        return int(e.code or 0)
    try:
        merged, counts = _merge(args.inputs, args.out, args.overwrite)
        if args.summary_csv:
            merged.summary.to_csv(args.summary_csv, index=False)
    except (UsageError, ResultsFileError, OSError) as e:  # OSError: e.g. the CSV's directory is missing
        print(f"hetprobe merge: error: {e}", file=sys.stderr)
        return 2
    n_segments, n_records, n_files = counts
    print(f"merged {n_segments} segment(s), {n_records} record(s) from {n_files} file(s) into {args.out}",
          file=sys.stderr)
    return 0
