"""The JSON Lines reader of results files: every complete record, in the current form."""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import ResultsFileError
from .upgrade import upgrade_records


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
