"""Checks of the files a command will write, made before anything is written: an output must be a
regular file (or not exist yet) in an existing, writable directory. A device, a directory or a FIFO
named as an output is refused, never replaced (os.replace over /dev/null would swap the device node
for a regular file)."""

from __future__ import annotations

import os
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
