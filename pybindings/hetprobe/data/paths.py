"""Checks of the files a command will write, made before anything is written: an output must be a
regular file (or not exist yet) in an existing, writable directory. A device, a directory or a FIFO
named as an output is refused, never replaced (os.replace over /dev/null would swap the device node
for a regular file)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..errors import UsageError
from .jsonl import FileKind, kind_of_mode


def file_kind(path) -> FileKind | None:
    """What an existing path is (links followed): FileKind.REGULAR, .DIRECTORY, .FIFO, ..., whose
    str() is the words messages use; None when nothing is there."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # nothing there (a/b where a is a file: neither)
        return None
    except OSError as e:
        raise UsageError(f"{path}: cannot be checked ({e.strerror})") from None
    return kind_of_mode(mode)


def placed_kind(path) -> FileKind | None:
    """What is at `path` itself, a link not followed (FileKind.SYMLINK for one); None when nothing is."""
    try:
        return kind_of_mode(os.lstat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        raise UsageError(f"{path}: cannot be checked ({e.strerror})") from None


def check_replaceable(path, what: str) -> None:
    """UsageError naming `path` unless nothing is there or a regular file (not a link to one): what a
    command writes into a directory replaces only its own files, never a link, a FIFO, a device or a
    directory, and nothing outside the directory."""
    kind = placed_kind(path)
    if kind not in (None, FileKind.REGULAR):
        raise UsageError(f"{path} is {kind}: {what} writes a regular file there and never replaces {kind}; remove it")


def write_whole(path, write, what: str) -> Path:
    """Writes the file at `path` whole or not at all: write(tmp) fills a new file beside it, which is
    renamed into place; check_replaceable first (`what` names the writer in its message)."""
    path = Path(path)
    check_replaceable(path, what)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=path.suffix)
    os.close(fd)
    try:
        write(Path(tmp))
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def check_output(path, option: str, overwrite: bool = False) -> Path:
    """The file `option` will write, checked: a regular file or nothing yet (a non-empty one only
    with `overwrite`), in an existing directory this process may write. Returns the path with a
    symbolic link resolved, so that writing replaces the file it points to, not the link."""
    path = Path(path)
    if str(path) in ("", "."):
        raise UsageError(f"{option}: give a file name")
    kind = file_kind(path)
    if kind is not None and kind != FileKind.REGULAR:
        raise UsageError(
            f"{option} {path}: is {kind}; give a regular file (a new one, or an existing one with --overwrite)"
        )
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    folder = target.parent if str(target.parent) else Path(".")
    if file_kind(folder) != FileKind.DIRECTORY:
        raise UsageError(f"{option} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {path}: the folder {folder} is not writable")
    if kind is not None and target.stat().st_size > 0 and not overwrite:
        raise UsageError(f"{option} {path}: exists and is not empty; pass --overwrite (overwrite=True) to replace it")
    return target


def same_file(a, b) -> bool:
    """Whether two paths name the same file (the same path when either does not exist)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def path_argument(value, name: str) -> str:
    """A path a public function takes (`name`: its keyword), as text: UsageError naming the keyword for
    anything but a non-empty str or os.PathLike without a NUL ("halo: expected a path, got int 5"),
    never a raw TypeError from inside the package, nor "" read as the current directory."""
    if not isinstance(value, (str, os.PathLike)):
        raise UsageError(f"{name}: expected a path (str or os.PathLike), got {type(value).__name__} {value!r}")
    text = os.fspath(value)
    if not isinstance(text, str):
        raise UsageError(f"{name}: expected a path as text, got {type(text).__name__} {text!r}")
    if text == "":
        raise UsageError(f"{name}: an empty path; give a file or a directory")
    if "\0" in text:
        raise UsageError(f"{name}: {text!r} holds a NUL character, which no path may hold")
    return text
