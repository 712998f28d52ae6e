"""The JSON Lines reader of results files: every complete record, in the current form.

The one reader of JSON Lines in the project: hetprobe.load, the halo rates, the records a running
probe appends (Tail) and the errors a launch records read through it, and so do the scripts that run
where the package may not be installed (tests/gpu/*.py, tests/mpi/check_halo.py), which load this
file by path. Standard library only, for them, and errors.py is then loaded by path too.

What a header's schema must be and how older versions read in the current form are C++'s rules
(bench/core/record_upgrade.cpp), read through the compiled module. Loaded by path, this file takes
an installed package's compiled module; where none is installed (a GPU machine's checkout), it reads
files as written: the scripts there read what their own build has just written.
"""

from __future__ import annotations

import enum
import importlib.machinery
import importlib.util
import json
import os
import stat
import zlib
from pathlib import Path


def _by_path(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _installed_core():
    """An installed hetprobe's compiled module, loaded without the package's own imports; None without one."""
    package = importlib.util.find_spec("hetprobe")
    for folder in package.submodule_search_locations if package else ():
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            if (found := Path(folder) / f"_core{suffix}").is_file():
                return _by_path(found, "hetprobe._core")
    return None


try:
    from ..errors import ResultsFileError
except ImportError:  # loaded by path, outside the package
    ResultsFileError = _by_path(Path(__file__).resolve().parents[1] / "errors.py", "hetprobe_errors").ResultsFileError
    _core = _installed_core()
else:
    from .. import _core


# A results file's names: as written, or gzip-compressed (notebooks/data keeps its large ones so).
SUFFIXES = (".jsonl.gz", ".jsonl")


def _limits() -> dict:
    """What one results file may hold, plain or once decompressed: its text, its lines and one line
    (results_limits.json: the installed package's, else a source tree's bench/core/; C++ reads the same)."""
    here = Path(__file__).resolve().parents[1]
    for path in (here / "results_limits.json", here.parents[1] / "bench" / "core" / "results_limits.json"):
        if path.is_file() and path.stat().st_size < 1 << 16:
            return json.loads(path.read_text(encoding="utf-8"))
    raise ImportError(f"results_limits.json: neither in {here} nor in a source tree's bench/core/")


_LIMITS = _limits()
MAX_TEXT_BYTES = _LIMITS["max_text_bytes"]
MAX_LINES = _LIMITS["max_lines"]
MAX_RECORD_BYTES = _LIMITS["max_record_bytes"]


def _results_name(path) -> str | None:
    """NAME of a file NAME.jsonl or NAME.jsonl.gz (no folder); None for any other name."""
    name = Path(path).name
    return next((name[: -len(s)] for s in SUFFIXES if name.endswith(s) and len(name) > len(s)), None)


def is_results_file(path) -> bool:
    """Whether a file's name is a results file's: NAME.jsonl or NAME.jsonl.gz."""
    return _results_name(path) is not None


def results_stem(path) -> str:
    """NAME of NAME.jsonl or NAME.jsonl.gz, without the folder (of another name, its stem)."""
    return _results_name(path) or Path(path).stem


def results_files(directory, recursive: bool = False) -> list[Path]:
    """The results files in a directory (and below it, with ``recursive``), sorted by path."""
    found = Path(directory).rglob("*") if recursive else Path(directory).glob("*")
    return sorted(p for p in found if is_results_file(p))


def results_file(directory, name: str) -> Path:
    """NAME's results file in a directory: NAME.jsonl, or NAME.jsonl.gz where only that is there."""
    plain = Path(directory) / f"{name}.jsonl"
    packed = plain.with_name(plain.name + ".gz")
    return packed if packed.is_file() and not plain.is_file() else plain


def gunzip(data: bytes, path, max_bytes: int = MAX_TEXT_BYTES) -> bytes:
    """The text of gzip bytes, as bench/core/gzip_text.cpp reads them: members one after another, a
    stream cut short up to the cut; ResultsFileError for a corrupt one, and for one whose text would
    pass `max_bytes`, as soon as it does (a small file of newlines or points must not exhaust memory)."""
    out = bytearray()
    while data:
        z = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        chunk = data
        try:
            while chunk:
                out += z.decompress(chunk, max_bytes + 1 - len(out))  # never 0: that would mean unbounded
                if len(out) > max_bytes:
                    raise ResultsFileError(
                        f"{path}: decompressed, its text passes {max_bytes >> 20} MiB, the most a results file "
                        "may hold: refused (split the run into several files)"
                    )
                chunk = z.unconsumed_tail
        except zlib.error as e:
            raise ResultsFileError(
                f"{path}: not a valid gzip file ({e}): results files are JSON Lines, plain or gzip-compressed"
            ) from None
        if not z.eof:  # cut short
            break
        data = z.unused_data
    return bytes(out)


def read_at_most(path, limit: int, refused: Exception) -> bytes:
    """The bytes of the file at `path`, raising `refused` where it holds more than `limit` (only
    limit + 1 are read: a device or a runaway file is refused before it is read whole)."""
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise refused
    return data


def bounded_bytes(path) -> bytes:
    """A results file's bytes (or a run directory's .json file's): a regular file of at most
    MAX_TEXT_BYTES, else ResultsFileError (a FIFO would block, /dev/zero never ends)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        raise ResultsFileError(f"{path}: cannot read results file ({e.strerror})") from None
    if not stat.S_ISREG(mode):
        raise ResultsFileError(f"{path} is {kind_of_mode(mode)}, not a results file (a regular file)")
    too_large = ResultsFileError(
        f"results file {path} passes {MAX_TEXT_BYTES >> 20} MiB, the most a results file may hold: refused "
        "(split the run into several files)"
    )
    return read_at_most(path, MAX_TEXT_BYTES, too_large)


class FileKind(str, enum.Enum):
    """What a path is, typed for the checks and worded for the messages every Python reader gives
    (str() and f-strings give the words; data/paths.py's file_kind returns one)."""

    REGULAR = "a regular file"
    DIRECTORY = "a directory"
    CHARACTER_DEVICE = "a character device"
    BLOCK_DEVICE = "a block device"
    FIFO = "a FIFO"
    SOCKET = "a socket"
    SYMLINK = "a symbolic link"  # only where a link is not followed (os.lstat)
    OTHER = "not a regular file"

    def __str__(self) -> str:
        return self.value

    __format__ = str.__format__


_MODE_TESTS = (
    (stat.S_ISREG, FileKind.REGULAR),
    (stat.S_ISDIR, FileKind.DIRECTORY),
    (stat.S_ISCHR, FileKind.CHARACTER_DEVICE),
    (stat.S_ISBLK, FileKind.BLOCK_DEVICE),
    (stat.S_ISFIFO, FileKind.FIFO),
    (stat.S_ISSOCK, FileKind.SOCKET),
    (stat.S_ISLNK, FileKind.SYMLINK),
)


def kind_of_mode(mode: int) -> FileKind:
    """What a stat mode is: FileKind.REGULAR, .DIRECTORY, .FIFO, ..."""
    return next((kind for test, kind in _MODE_TESTS if test(mode)), FileKind.OTHER)


def parse_line(line: bytes | str):
    """One line's JSON value; ValueError for a line that is not JSON, or that holds NaN or Infinity
    (never written, and the C++ reader refuses them)."""

    def reject(name):
        raise ValueError(name)

    return json.loads(line, parse_constant=reject)


def read_jsonl(path) -> tuple[list[tuple[int, bytes, dict]], bool]:
    """(line number, raw line, record) of each complete record, and whether the tail was incomplete.
    Records of an older schema_version come back in the current form (C++'s upgrade); raw lines as written.
    A gzip-compressed file (*.jsonl.gz) is read as its text.

    Same rules as bench/core/results.cpp read_results: unterminated bytes at the end are ignored even if
    they parse; a terminated line that does not parse is ignored only as the last non-blank line;
    any other bad line, or a line that is not an object, raises ResultsFileError.
    """
    data = bounded_bytes(path)
    if data[:2] == b"\x1f\x8b":  # gzip-compressed (*.jsonl.gz)
        data = gunzip(data, path)
    if data.count(b"\n") > MAX_LINES:
        raise ResultsFileError(
            f"{path}: more than {MAX_LINES} lines, the most a results file may hold: refused (split the run into "
            "several files)"
        )
    lines = data.split(b"\n")
    if (long := next((i for i, line in enumerate(lines) if len(line) > MAX_RECORD_BYTES), None)) is not None:
        raise ResultsFileError(
            f"{path}:{long + 1}: a line longer than {MAX_RECORD_BYTES >> 20} MiB, the most one record may hold: refused"
        )
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
        if value.get("record") == "header" and _core and (problem := _core.schema_problem(json.dumps(value))):
            raise ResultsFileError(f"{path}:{i + 1}: {problem}")
        out.append((i + 1, line, value))
    return _current_form(out), truncated


def _current_form(out: list[tuple[int, bytes, dict]]) -> list[tuple[int, bytes, dict]]:
    """The records of one file with those of an older schema version upgraded (C++'s upgrade; the
    records themselves only pass through it when a header is older)."""
    headers = [rec for _, _, rec in out if rec.get("record") == "header"]
    if not _core or all(h.get("schema_version") == _core.schema_version for h in headers):
        return out
    upgraded = _core.upgrade_records(json.dumps([rec for _, _, rec in out]))
    return [(number, raw, rec) for (number, raw, _), rec in zip(out, upgraded)]


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
