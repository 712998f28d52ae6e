"""The hosts of a run across nodes, checked before anything runs: characterize's ``--hosts A,B`` and
the batch scripts' hosts files. Bad input is a UsageError naming what is wrong (the CLI's exit 2),
and nothing is written.

    hosts.main([--resolve] [--prog NAME] FILE): prints the hosts of FILE, one a line; exit 2 with a
    message when it is bad (the batch scripts call it: python -c 'from hetprobe.run.hosts import main; ...')

A hosts file holds one host a line; ``#`` starts a comment, and empty lines are skipped. Refused:
a file that cannot be read or is not a regular file (a FIFO, a device), one over 64 KiB, one that
names no host or only one, a line of blanks (a blank name), and a line of more than one word (an
Open MPI hostfile's ``slots=`` is not read here). A name may appear twice: two slots of one machine
stand in for two nodes in a test. ``--hosts`` takes two different
hosts, each resolvable here; a pair on this node leaves ``--hosts`` out.
"""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path

from ..data.jsonl import read_at_most
from ..data.paths import FileKind, file_kind
from ..errors import UsageError

# A hosts file holds at most this many bytes: 64 KiB is thousands of host names, and a device or a
# runaway file is refused before it is read whole.
MAX_HOSTS_FILE_BYTES = 64 << 10


def _addresses(name: str) -> set[str]:
    """The addresses `name` resolves to here; UsageError when it resolves to none."""
    try:
        return {info[4][0] for info in socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)}
    except (socket.gaierror, UnicodeError) as e:
        why = e.strerror if isinstance(e, socket.gaierror) and e.strerror else str(e)
        raise UsageError(f"unknown host {name!r} (it does not resolve here: {why})") from None


def check_pair(text: str) -> list[str]:
    """``--hosts A,B``: the two hosts of the interference pair, sender first. Refused: not two names, a
    blank one, one listed twice (or two names of one address), a name that does not resolve here."""
    names = [n.strip() for n in text.split(",")]
    if len(names) != 2:
        raise UsageError(f"--hosts {text!r}: expected two host names, comma-separated (a,b)")
    if not all(names):
        raise UsageError(f"--hosts {text!r}: a blank host name (expected two names, comma-separated: a,b)")
    if names[0].lower() == names[1].lower():
        raise UsageError(
            f"--hosts {text!r}: {names[0]} is listed twice; the pair needs two different hosts "
            "(for a pair on this node, leave --hosts out)"
        )
    try:
        first, second = (_addresses(n) for n in names)
    except UsageError as e:
        raise UsageError(f"--hosts {text!r}: {e}") from None
    if first & second:
        raise UsageError(
            f"--hosts {text!r}: {names[0]} and {names[1]} are one host (both resolve to "
            f"{', '.join(sorted(first & second))}); the pair needs two different hosts"
        )
    return names


def read_hosts_file(path, resolve: bool = False) -> list[str]:
    """The hosts of a hosts file, in order (see the module's doc for what is refused). ``resolve``:
    also refuse a name that does not resolve here (mpirun must reach each host by its name)."""
    path = Path(path)
    try:
        if file_kind(path) not in (None, FileKind.REGULAR):  # a FIFO would block, /dev/zero never ends
            raise UsageError(f"the hosts file {path} is not a regular file")
        too_large = UsageError(
            f"the hosts file {path} passes {MAX_HOSTS_FILE_BYTES >> 10} KiB, the most a hosts file may hold "
            "(one host a line)"
        )
        text = read_at_most(path, MAX_HOSTS_FILE_BYTES, too_large).decode()
    except (OSError, UnicodeDecodeError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise UsageError(f"cannot read the hosts file {path}: {why}") from None
    lines = []  # (line number, host)
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words and line.strip() == "" and line != "":
            raise UsageError(f"{path}:{number}: a blank name (a line of spaces only); write a host or leave it empty")
        if len(words) > 1:
            raise UsageError(
                f"{path}:{number}: {line.strip()!r}: one host name a line "
                "(an Open MPI hostfile's slots= is not read here)"
            )
        lines += [(number, w) for w in words]
    if not lines:
        raise UsageError(f"{path} names no hosts (one host a line; # starts a comment)")
    if len(lines) < 2:
        raise UsageError(f"{path} names fewer than 2 hosts ({lines[0][1]}): a pair needs two")
    for number, host in lines if resolve else []:
        try:
            _addresses(host)
        except UsageError as e:
            raise UsageError(f"{path}:{number}: {e}") from None
    return [host for _, host in lines]


def main(argv=None) -> int:
    """Prints the hosts of a hosts file, one a line: 0, or 2 with a message for a bad file."""
    p = argparse.ArgumentParser(prog="hetprobe.run.hosts", description="Check a hosts file and print its hosts")
    p.add_argument("file")
    p.add_argument("--resolve", action="store_true", help="also refuse a host that does not resolve here")
    p.add_argument("--prog", default="hetprobe hosts", help="the name error messages start with")
    a = p.parse_args(argv)
    try:
        hosts = read_hosts_file(a.file, resolve=a.resolve)
    except UsageError as e:
        print(f"{a.prog}: error: {e}", file=sys.stderr)
        return 2
    print("\n".join(hosts))
    return 0
