"""Set-up's shell steps (bench/setup_apt.sh, bench/setup_python.sh) on their own, with stand-ins for
the system's files: the wait for apt's lock, held here by this process as unattended-upgrades holds it
(a POSIX lock, as apt takes), and the hint that says how to run `hetprobe` without linking it anywhere."""

from __future__ import annotations

import fcntl
import os
import subprocess
from pathlib import Path

from conftest import REPO


def bash(script: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen(
        ["bash", "-c", f"set -euo pipefail\n{script}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def wait_for_apt(lock: Path, wait_s: int) -> subprocess.Popen:
    return bash(
        f"source {REPO}/bench/setup_apt.sh\n"
        f"apt_lock_files=({lock}) apt_lock_wait_s={wait_s} apt_lock_poll_s=1\n"
        "wait_for_apt\necho waited"
    )


def hold(lock: Path) -> int:
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o640)
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def test_wait_for_apt_waits_while_the_lock_is_held_and_names_who_holds_it(tmp_path):
    lock = tmp_path / "lock-frontend"
    fd = hold(lock)
    try:
        waiter = wait_for_apt(lock, wait_s=600)
        busy = waiter.stderr.readline()  # said at once, before the first poll
        assert busy.startswith("setup: apt is busy: ") and f"(pid {os.getpid()}) holds {lock}" in busy
        assert waiter.poll() is None, "returned while the lock was still held"
    finally:
        os.close(fd)  # the lock goes with its descriptor
    out, err = waiter.communicate(timeout=60)
    assert waiter.returncode == 0 and out == "waited\n"
    assert "setup: apt's lock is free after" in err


def test_wait_for_apt_gives_up_after_its_limit_and_says_so(tmp_path):
    lock = tmp_path / "lock"
    fd = hold(lock)
    try:
        out, err = wait_for_apt(lock, wait_s=2).communicate(timeout=60)
    finally:
        os.close(fd)
    assert out == "", "went on although apt stayed busy"
    me = f"{Path('/proc/self/comm').read_text().strip()} (pid {os.getpid()})"
    assert f"setup: apt is still busy after 2 s: {me} holds {lock}" in err
    assert "Run this again once it is done" in err


def test_wait_for_apt_returns_at_once_when_apt_is_free(tmp_path):
    lock = tmp_path / "lock"
    lock.touch()
    waiter = wait_for_apt(lock, wait_s=600)
    out, err = waiter.communicate(timeout=30)
    assert (waiter.returncode, out, err) == (0, "waited\n", "")


def path_hint(tmp_path: Path, path: str) -> tuple[str, Path]:
    """Runs hetprobe_path_hint for a clone at tmp_path/clone, with tmp_path/bin the only old-link folder."""
    clone_bin = tmp_path / "clone" / ".venv" / "bin"
    clone_bin.mkdir(parents=True, exist_ok=True)
    (clone_bin / "hetprobe").write_text("#!/bin/sh\n")
    (clone_bin / "hetprobe").chmod(0o755)
    (clone_bin / "activate").write_text("")
    script = (
        f"setup_stages=3 root={tmp_path / 'clone'} source {REPO}/bench/setup_python.sh\n"
        f"old_link_dirs=({tmp_path / 'bin'}) hetprobe_command={clone_bin / 'hetprobe'}\n"
        f"PATH={path}\nhetprobe_path_hint"
    )
    hint = bash(script)
    out, err = hint.communicate(timeout=30)
    assert hint.returncode == 0 and out == "", err
    return err, clone_bin


def test_path_hint_links_nothing_and_says_what_to_type(tmp_path):
    (tmp_path / "bin").mkdir()
    err, clone_bin = path_hint(tmp_path, f"{tmp_path / 'bin'}:/usr/bin:/bin")
    assert list((tmp_path / "bin").iterdir()) == [], "set-up tied a shared bin folder to one clone"
    assert f"source {clone_bin}/activate" in err and f'export PATH="{clone_bin}:$PATH"' in err


def test_path_hint_names_another_clones_hetprobe_first_on_path(tmp_path):
    other = tmp_path / "other" / ".venv" / "bin"
    other.mkdir(parents=True)
    (other / "hetprobe").write_text("#!/bin/sh\n")
    (other / "hetprobe").chmod(0o755)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "hetprobe").symlink_to(other / "hetprobe")
    err, clone_bin = path_hint(tmp_path, f"{tmp_path / 'bin'}:/usr/bin:/bin")
    assert (tmp_path / "bin" / "hetprobe").resolve() == other / "hetprobe", "another clone's link was changed"
    assert f"the hetprobe on PATH is another one: {tmp_path / 'bin' / 'hetprobe'} -> {other / 'hetprobe'}" in err
    assert f"this clone's is {clone_bin / 'hetprobe'}" in err
    assert f"`rm {tmp_path / 'bin' / 'hetprobe'}` unties PATH from that clone" in err
    assert f"source {clone_bin}/activate" in err


def test_path_hint_removes_an_old_link_into_a_deleted_clone(tmp_path):
    (tmp_path / "bin").mkdir()
    gone = tmp_path / "deleted-clone" / ".venv" / "bin" / "hetprobe"
    (tmp_path / "bin" / "hetprobe").symlink_to(gone)
    err, _ = path_hint(tmp_path, f"{tmp_path / 'bin'}:/usr/bin:/bin")
    assert not (tmp_path / "bin" / "hetprobe").is_symlink()
    assert f"removed {tmp_path / 'bin' / 'hetprobe'}, a link an earlier set-up made into a clone that is gone" in err


def test_path_hint_keeps_a_dangling_link_set_up_did_not_make(tmp_path):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "hetprobe").symlink_to(tmp_path / "somewhere" / "hetprobe")
    path_hint(tmp_path, "/usr/bin:/bin")
    assert (tmp_path / "bin" / "hetprobe").is_symlink()
