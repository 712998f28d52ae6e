"""The JSON Lines reader of results files: every complete record, in the current form.

The one reader of JSON Lines in the project: hetprobe.load, the halo rates, the records a running
probe appends (Tail) and the errors a launch records read through it, and so do the scripts that run
where the package may not be installed (tests/gpu/*.py, tests/mpi/check_halo.py), which load this
file by path. Standard library only, for them; its neighbours (errors.py, upgrade.py) are then loaded
by path too.
"""

from __future__ import annotations

import json
from pathlib import Path

try:
    from ..errors import ResultsFileError
    from .upgrade import upgrade_records
except ImportError:  # loaded by path, outside the package: errors.py and upgrade.py are standard library too
    import importlib.util

    def _by_path(path: Path):
        spec = importlib.util.spec_from_file_location(f"hetprobe_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    ResultsFileError = _by_path(Path(__file__).resolve().parents[1] / "errors.py").ResultsFileError
    upgrade_records = _by_path(Path(__file__).resolve().with_name("upgrade.py")).upgrade_records


def parse_line(line: bytes | str):
    """One line's JSON value; ValueError for a line that is not JSON, or that holds NaN or Infinity
    (never written, and the C++ reader refuses them)."""

    def reject(name):
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
            value = parse_line(line)
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


def records(path) -> list[dict]:
    """Every complete record of a JSON Lines file, in the current form: what hetprobe.load reads of
    it (a cut last line, as a killed run leaves, is left out). ResultsFileError for a bad line."""
    return [rec for _, _, rec in read_jsonl(path)[0]]


class Tail:
    """The records a running program appends to a JSON Lines file, as they come: each call of new()
    returns the lines completed since the last (from the file's end when the Tail was made), parsed
    as written; a line still being written waits for its newline."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.offset = self.path.stat().st_size if self.path.exists() else 0
        self.pending = b""

    def new(self) -> list:
        if not self.path.exists():
            return []
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            chunk = f.read()
        self.offset += len(chunk)
        *lines, self.pending = (self.pending + chunk).split(b"\n")
        return [parse_line(line) for line in lines if line.strip()]
