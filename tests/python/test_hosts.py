"""The hosts of a run across nodes (hetprobe/run/hosts.py): characterize's --hosts and the batch scripts'
hosts files, each refusal with its reason, and hosts.main as the batch scripts call it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from hetprobe.errors import UsageError
from hetprobe.run import hosts

# A resolver standing in for the network: these names and their addresses, no other.
KNOWN = {"nodeA": "10.0.0.1", "nodeB": "10.0.0.2", "nodeA-alias": "10.0.0.1", "localhost": "127.0.0.1"}


@pytest.fixture
def resolver(monkeypatch):
    def getaddrinfo(name, *args, **kwargs):
        if name not in KNOWN:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (KNOWN[name], 0))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def test_a_pair_of_two_known_hosts(resolver):
    assert hosts.check_pair("nodeA,nodeB") == ["nodeA", "nodeB"]
    assert hosts.check_pair(" nodeB , nodeA ") == ["nodeB", "nodeA"]  # sender first, blanks around a name dropped


def test_characterize_gives_the_launcher_the_hosts_it_checked(resolver, tmp_path):
    """The blanks check_pair drops are dropped from what mpirun or srun gets too (issue 36): the hosts are
    stripped once, and the launcher sees the names that were checked."""
    from hetprobe.run.characterize import _check_options

    assert _check_options("host", None, None, " nodeA , nodeB ", [], tmp_path / "run") == "nodeA,nodeB"
    assert _check_options("host", None, None, None, [], tmp_path / "run") is None


@pytest.mark.parametrize(
    "text, why",
    [
        ("nodeA", r"--hosts 'nodeA': expected two host names"),
        ("nodeA,nodeB,nodeA", r"expected two host names"),
        ("nodeA,", r"a blank host name"),
        ("nodeA,nodeA", r"nodeA is listed twice; the pair needs two different hosts"),
        ("nodeA,NODEA", r"listed twice"),  # host names ignore case
        ("nodeA,nodeA-alias", r"nodeA and nodeA-alias are one host \(both resolve to 10.0.0.1\)"),
        ("nodeA,nodeZ", r"unknown host 'nodeZ' \(it does not resolve here: Name or service not known\)"),
    ],
)
def test_a_bad_pair_is_refused_with_its_reason(resolver, text, why):
    with pytest.raises(UsageError, match=why):
        hosts.check_pair(text)


def test_a_hosts_file_skips_comments_and_empty_lines(tmp_path, resolver):
    f = tmp_path / "hosts"
    f.write_text("# the pair\nnodeA  # first\n\n\tnodeB\nnodeA\n")
    assert hosts.read_hosts_file(f) == ["nodeA", "nodeB", "nodeA"]  # a name may come twice: slots of one machine
    assert hosts.read_hosts_file(f, resolve=True) == ["nodeA", "nodeB", "nodeA"]


@pytest.mark.parametrize(
    "text, why",
    [
        ("", r"names no hosts"),
        ("# only a comment\n\n", r"names no hosts"),
        ("nodeA\n", r"names fewer than 2 hosts \(nodeA\)"),
        ("nodeA\n   \nnodeB\n", r"hosts:2: a blank name"),
        ("nodeA\nnode B\n", r"hosts:2: 'node B': one host name a line"),
        ("nodeA slots=2\nnodeB\n", r"hosts:1: .*slots= is not read here"),
    ],
)
def test_a_bad_hosts_file_is_refused_with_its_reason(tmp_path, text, why):
    f = tmp_path / "hosts"
    f.write_text(text)
    with pytest.raises(UsageError, match=why):
        hosts.read_hosts_file(f)


def test_a_hosts_file_with_an_unknown_host_when_resolving(tmp_path, resolver):
    f = tmp_path / "hosts"
    f.write_text("nodeA\nnodeZ\n")
    assert hosts.read_hosts_file(f) == ["nodeA", "nodeZ"]  # Slurm's node names: not resolved
    with pytest.raises(UsageError, match=r"hosts:2: unknown host 'nodeZ'"):
        hosts.read_hosts_file(f, resolve=True)


def test_a_missing_hosts_file(tmp_path):
    with pytest.raises(UsageError, match=r"cannot read the hosts file .*missing: No such file"):
        hosts.read_hosts_file(tmp_path / "missing")


def test_the_command_prints_the_hosts_or_exits_2(tmp_path):
    good, bad = tmp_path / "good", tmp_path / "bad"
    good.write_text("localhost\nlocalhost\n")
    bad.write_text("localhost\n")
    run = [
        sys.executable,
        "-c",
        "import sys; from hetprobe.run.hosts import main; sys.exit(main())",
        "--prog",
        "sweep_pairs",
    ]
    done = subprocess.run([*run, str(good)], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.split() == ["localhost", "localhost"], done.stderr
    done = subprocess.run([*run, str(bad)], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("sweep_pairs: error: ") and "fewer than 2 hosts" in done.stderr


def test_a_hosts_file_that_is_not_a_regular_file_or_too_large_is_refused(tmp_path):
    """Bounded readers (issue 36): a FIFO once blocked forever and /dev/zero exhausted memory."""
    os.mkfifo(tmp_path / "fifo")
    for path in (tmp_path / "fifo", "/dev/zero", tmp_path):
        with pytest.raises(UsageError, match="is not a regular file"):
            hosts.read_hosts_file(path)
    big = tmp_path / "big"
    big.write_text("nodeA\n" * 20000)
    with pytest.raises(UsageError, match="passes 64 KiB, the most a hosts file may hold"):
        hosts.read_hosts_file(big)
