"""Combine results files (e.g. one per node or per run) into one JSON Lines file (gzip-compressed
when its name ends in .gz, as every reader takes it).

    hetprobe merge -o all.jsonl [--overwrite] [--summary-csv all.csv] node1/ node2/run.jsonl

Exit code 2, with nothing written, for bad input: an output that is a device, a directory, a FIFO,
in a missing folder, one of the inputs, or non-empty without --overwrite; a missing or corrupt input.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gzip
import os
import sys
import tempfile
from pathlib import Path

from ..cli_args import parse
from ..errors import ResultsFileError, UsageError
from .jsonl import is_results_file
from .load import Results, load
from .paths import check_output, same_file


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


def _check_as_show_does(files: list) -> None:
    """Each results file (JSON Lines) checked as `hetprobe show` checks it (the C++ reader, one run at a
    time): a field show needs that is missing or of the wrong type is a UsageError naming FILE:LINE."""
    from .. import _rules

    for f in files:
        if is_results_file(f):
            _rules.check_results_file(str(f))


# Failures of the system, not of the paths given: exit 1 (the message names the output all the same).
_ENVIRONMENT_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.ENOMEM}


def _temporary(target: Path, option: str) -> tuple[int, str]:
    """A new file beside `target` (mode 0644: a results file is for sharing), to rename over it when
    complete. A folder that takes no new file (/proc, a read-only mount) is a UsageError naming
    `option` and `target`, not the temporary name."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=target.name + ".", suffix=".tmp", dir=target.parent)
    except OSError as e:
        if e.errno in _ENVIRONMENT_ERRNOS:
            raise OSError(e.errno, e.strerror, str(target)) from None
        raise UsageError(f"{option} {target}: cannot create a file in {target.parent} ({e.strerror})") from None
    os.chmod(tmp, 0o644)
    return fd, tmp


def _write(results: Results, tmp_fd: int, compressed: bool = False) -> tuple[int, int]:
    """Writes every segment once (a byte-identical header = the same segment given twice) into the open
    file `tmp_fd`, gzip-compressed when `compressed` (an output named *.gz; no name or time in the gzip
    header, so the same records give the same bytes). Returns (segments, records) written. The lines
    are copied as read, so numbers stay exact and the private _file/_segment keys never reach the file;
    truncated tails were already dropped.
    """
    seen, n_segments, n_records = set(), 0, 0
    with (
        os.fdopen(tmp_fd, "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) if compressed else contextlib.nullcontext(raw) as f,
    ):
        for header, lines in _segments(results):
            key = header.strip()
            if key in seen:
                continue
            seen.add(key)
            n_segments += 1
            n_records += len(lines)
            f.writelines(line.rstrip(b"\r") + b"\n" for line in lines)
    return n_segments, n_records


def merge(paths, out=None, overwrite: bool = False, summary_csv=None) -> Results:
    """Load every results file or directory in `paths`; with `out`, also write them as one file.

    The written file holds every complete record of every input, segment by segment, each segment
    starting with its header; a segment whose header line is identical to one already written (the
    same file given twice) is written once. ``summary_csv``: also write the summary table there.
    Every output is checked before anything is written (UsageError): a regular file or a new one in
    an existing folder, not one of the inputs, a non-empty one only with overwrite=True; a device, a
    directory or a FIFO is refused, never replaced. Outputs appear whole or not at all. Returns
    load(out) when `out` is given, else the combined Results in memory.
    """
    return _merge(paths, out, overwrite, summary_csv)[0]


def _check_outputs(paths: list, out, overwrite: bool, summary_csv) -> tuple[Path | None, Path | None]:
    outputs = []
    if out is not None:
        outputs.append(("-o/--out", check_output(out, "-o/--out", overwrite)))
    if summary_csv is not None:
        outputs.append(("--summary-csv", check_output(summary_csv, "--summary-csv", overwrite)))
    if len(outputs) == 2 and same_file(outputs[0][1], outputs[1][1]):
        raise UsageError(f"-o/--out and --summary-csv name the same file ({out}); give two files")
    for option, path in outputs:
        for p in paths:
            if Path(p).is_file() and same_file(p, path):
                raise UsageError(f"{option} {path} is one of the inputs; write it elsewhere")
    found = dict(outputs)
    return found.get("-o/--out"), found.get("--summary-csv")


def _merge(paths, out, overwrite, summary_csv=None, read_back: bool = True):
    """merge(), also returning (segments written, records written, files read). ``read_back=False`` (the
    command, which prints only the counts): the written file is not loaded again, which took half of a
    100 000-line merge's time."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = list(paths)
    out, csv = _check_outputs(paths, out, overwrite, summary_csv)
    results = load(paths)
    _check_as_show_does(results.files)
    for option, path in (("-o/--out", out), ("--summary-csv", csv)):
        if path is not None and path.exists() and any(same_file(f, path) for f in results.files):
            raise UsageError(f"{option} {path} is one of the inputs; write it elsewhere")  # inside an input folder
    counts = (len(results.headers), len(results.records), len(results.files))
    written = []  # (temporary, final) pairs, renamed together once all are complete
    try:
        if out is not None:
            fd, tmp = _temporary(out, "-o/--out")
            written.append((tmp, out))
            counts = _write(results, fd, out.name.endswith(".gz")) + (len(results.files),)
            if csv is not None:  # the merged file's own summary, its rows naming the merged file
                summary = load(tmp).summary.assign(file=str(out))
        if csv is not None:
            fd, tmp = _temporary(csv, "--summary-csv")
            written.append((tmp, csv))
            with os.fdopen(fd, "w", newline="") as f:
                (summary if out is not None else results.summary).to_csv(f, index=False)
        for tmp, final in written:
            os.replace(tmp, final)
    except BaseException as e:
        for tmp, _ in written:
            if os.path.exists(tmp):
                os.unlink(tmp)
        if isinstance(e, OSError) and written and (e.filename is None or e.filename == written[-1][0]):
            raise OSError(e.errno, e.strerror, str(written[-1][1])) from None  # the output's name, not its temporary's
        raise
    return (load(out) if out is not None and read_back else results), counts


def main(argv=None) -> int:
    """`hetprobe merge`: returns the exit status (0, or 2 for a usage or results-file error)."""
    parser = argparse.ArgumentParser(
        prog="hetprobe merge",
        description="Combine hetprobe results files (JSON Lines) and directories of them into one file. "
        "Every output is checked before anything is written; outputs appear whole or not at all.",
    )
    parser.add_argument(
        "inputs", nargs="+", metavar="INPUT", help="results file (*.jsonl, *.jsonl.gz) or directory of them"
    )
    parser.add_argument(
        "-o",
        "--out",
        required=True,
        help="merged JSON Lines file to write (a regular file; gzip-compressed when its name ends in .gz)",
    )
    parser.add_argument("--overwrite", action="store_true", help="replace OUT (and the CSV) if they exist")
    parser.add_argument("--summary-csv", metavar="FILE", help="also write the merged summary table as CSV")
    try:
        args = parse(parser, argv)
    except SystemExit as e:  # argparse exits on bad options and --help; report the code instead
        return int(e.code or 0)
    try:
        _, counts = _merge(args.inputs, args.out, args.overwrite, args.summary_csv, read_back=False)
    except (UsageError, ResultsFileError) as e:
        print(f"hetprobe merge: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # checked above; what is left is the system's (a full disk, a vanished folder)
        print(f"hetprobe merge: error: {e.filename or ''}: {e.strerror or e}; nothing was written", file=sys.stderr)
        return 1
    n_segments, n_records, n_files = counts
    print(
        f"merged {n_segments} segment(s), {n_records} record(s) from {n_files} file(s) into {args.out}", file=sys.stderr
    )
    return 0
