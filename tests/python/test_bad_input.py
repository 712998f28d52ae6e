"""Bad input to the Python commands (merge, report, characterize), one row per case: each exits 2
with a message naming the option or the file (line and field for a malformed record), writes
nothing and damages nothing: every file keeps its bytes, a device stays a device, no run directory
appears. The commands run in this process (hetprobe.cli.main), so the table stays quick."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest
from conftest import REPO, RUNS

from hetprobe.cli import main

BANDWIDTH = RUNS / "h200-bandwidth.jsonl"  # a small valid input: a header and 4 points


def _lines(edit) -> str:
    """The bandwidth file with its records changed by edit(records) (a list of dicts)."""
    records = [json.loads(line) for line in BANDWIDTH.read_text().splitlines()]
    edit(records)
    return "".join(json.dumps(r) + "\n" for r in records)


MALFORMED = {
    "missing_field.jsonl": (_lines(lambda r: r[1].pop("writer")), r":2: field 'writer': missing \(a bandwidth point"),
    "wrong_type.jsonl": (_lines(lambda r: r[2].update(gbs="fast")), r":3: field 'gbs': expected an array, got string"),
    "bad_sample.jsonl": (
        _lines(lambda r: r[3]["gbs"].__setitem__(1, None)),
        r":4: field 'gbs\[1\]': expected a number, got null",
    ),
    "bad_header.jsonl": (
        _lines(lambda r: r[0].update(device="H200")),
        r":1: field 'device': expected an object, got string \(a bandwidth header",
    ),
    "bad_warnings.jsonl": (
        _lines(lambda r: r[1].update(warnings="noisy")),
        r":2: field 'warnings': expected an array, got string",
    ),
    "not_json.jsonl": (
        BANDWIDTH.read_text().replace('"probe":"bandwidth","writer"', '"probe" "bandwidth"', 1),
        r":2: invalid JSON",
    ),
    "empty.jsonl": ("", r": holds no complete record"),
}

# An interference run (a header and two points), damaged: what `hetprobe show` refuses, merge refuses too.
RESULTS = REPO / "tests" / "data" / "results"
_POINTS = [json.loads(line) for line in (RESULTS / "interference-point-missing-field.jsonl").read_text().splitlines()]
_POINTS = [_POINTS[0], _POINTS[1], _POINTS[3]]  # line 3 lacks send_time_ns: left out, to damage on purpose


def _interference(edit) -> str:
    records = json.loads(json.dumps(_POINTS))
    edit(records)
    return "".join(json.dumps(r) + "\n" for r in records)


MALFORMED.update(
    {
        "size_bytes_big.jsonl": (
            _interference(lambda r: r[1].update(size_bytes="big")),
            r":2: field 'size_bytes': expected (an integer|a whole number)",
        ),
        "no_config.jsonl": (_interference(lambda r: r[0].pop("config")), r":1: field 'config' is missing"),
        "halo_missing_field.jsonl": (
            (RESULTS / "halo-missing-field.jsonl").read_text(),
            r":2: field 'iteration_ns': missing",
        ),
    }
)


@pytest.fixture
def scene(tmp_path):
    """Paths of every kind a user might name: a valid input, an existing results file, a directory, a
    FIFO and a character device (a twin of /dev/null made here, where the test may make one)."""
    s = {
        "in": tmp_path / "bandwidth.jsonl",
        "existing": tmp_path / "existing.jsonl",
        "dir": tmp_path / "dir",
        "fifo": tmp_path / "fifo",
        "dev": tmp_path / "null",
        "new": tmp_path / "new.jsonl",
        "csv": tmp_path / "new.csv",
        "missing": tmp_path / "missing" / "x.jsonl",
        "run": tmp_path / "run",
        "full": tmp_path / "full",
    }
    s["in"].write_bytes(BANDWIDTH.read_bytes())
    s["existing"].write_text("keep me\n")
    s["dir"].mkdir()
    s["full"].mkdir()
    (s["full"] / "old.txt").write_text("x")
    os.mkfifo(s["fifo"])
    try:
        os.mknod(s["dev"], 0o644 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        s["dev"] = None
    for name, (text, _) in MALFORMED.items():
        (tmp_path / name).write_text(text)
    return s


def snapshot(root: Path) -> dict:
    """Every path under root with its type, and the bytes of each regular file."""
    out = {}
    for path in sorted(root.rglob("*")):
        mode = path.lstat().st_mode
        out[str(path)] = path.read_bytes() if stat.S_ISREG(mode) else stat.S_IFMT(mode)
    return out


# characterize OPTION VALUE RUN, named by its command line: an option's bad value, refused before anything
# runs; a value that starts with "-" reaches the option's own check (argparse alone said "expected one
# argument"), and --sizes is checked by the interference probe it is passed to.
BAD_VALUES = [
    ("--timeout", "inf", r"--timeout inf: expected a finite"),
    ("--timeout", "nan", r"--timeout nan"),
    ("--timeout", "1e300", r"at most 604800"),
    ("--timeout", "-1", r"above 0"),
    ("--timeout", "0", r"above 0"),
    ("--timeout", "soon", r"--timeout: invalid float"),
    ("--reps", "0", r"--reps 0: expected an integer from 1"),
    ("--reps", "2147483647", r"to 1,000,000"),
    ("--reps", "-5", r"--reps -5"),
    ("--reps", "many", r"--reps: invalid int"),
    ("--skip", "bogus", r"--skip bogus: the steps are"),
    ("--device", "gpu0", r"--device gpu0: expected one of auto, host, cuda, hip"),
    ("--tolerance", "-5%", r"--tolerance '-5%': expected"),
    ("--tolerance", "100%", r"below 100"),
    ("--tolerance", "0", r"--tolerance '0': expected"),
    ("--tolerance", "ten", r"--tolerance 'ten': expected"),
    ("--launches", "²", r"--launches '²': expected a whole"),
    ("--launches", "-1", r"--launches '-1': expected a whole"),
    ("--progress", "fancy", r"--progress: invalid choice"),
    ("--sizes", "0", r"the interference step's options: size \"0\": must be positive"),
]

CASES = [
    # merge: outputs checked before anything is written
    ("merge -o a character device", ["merge", "-o", "{dev}", "{in}"], r"-o/--out .*null: is a character device"),
    ("merge -o a directory", ["merge", "-o", "{dir}", "{in}"], r"-o/--out .*dir: is a directory"),
    ("merge -o a FIFO", ["merge", "-o", "{fifo}", "{in}"], r"-o/--out .*fifo: is a FIFO"),
    ("merge -o in a missing folder", ["merge", "-o", "{missing}", "{in}"], r"the folder .*missing does not exist"),
    ("merge -o an existing file", ["merge", "-o", "{existing}", "{in}"], r"exists and is not empty; pass --overwrite"),
    ("merge -o one of the inputs", ["merge", "--overwrite", "-o", "{in}", "{in}"], r"is one of the inputs"),
    (
        "merge --summary-csv a device",
        ["merge", "-o", "{new}", "--summary-csv", "{dev}", "{in}"],
        r"--summary-csv .*null: is a character device",
    ),
    (
        "merge --summary-csv a directory",
        ["merge", "-o", "{new}", "--summary-csv", "{dir}", "{in}"],
        r"--summary-csv .*dir: is a directory",
    ),
    (
        "merge --summary-csv in a missing folder",
        ["merge", "-o", "{new}", "--summary-csv", "{missing}", "{in}"],
        r"--summary-csv .*the folder .*missing does not exist",
    ),
    ("merge --summary-csv onto -o", ["merge", "-o", "{new}", "--summary-csv", "{new}", "{in}"], r"name the same file"),
    (
        "merge --summary-csv onto an existing file",
        ["merge", "-o", "{new}", "--summary-csv", "{existing}", "{in}"],
        r"--summary-csv .*exists and is not empty",
    ),
    ("merge a FIFO as input", ["merge", "-o", "{new}", "{fifo}"], r"fifo: is a FIFO, not a results file"),
    ("merge a missing input", ["merge", "-o", "{new}", "{missing}"], r"no such results file or directory"),
    ("merge without -o", ["merge", "{in}"], r"the following arguments are required: -o/--out"),
    (
        "merge -o in a folder that takes no file",
        ["merge", "-o", "/proc/hetprobe-merged.jsonl", "{in}"],
        r"-o/--out /proc/hetprobe-merged.jsonl: cannot create a file in /proc",
    ),
    # report: a run directory only
    ("report a file", ["report", "{in}"], r"is not a run directory"),
    ("report a FIFO", ["report", "{fifo}"], r"is not a run directory"),
    ("report a directory without results", ["report", "{dir}"], r"holds no results"),
    ("report a missing directory", ["report", "{missing}"], r"is not a run directory"),
    # characterize: its own options before anything runs (the probes check theirs)
    *[
        (f"characterize {option} {value}", ["characterize", option, value, "{run}"], m)
        for option, value, m in BAD_VALUES
    ],
    ("characterize --skip with an empty item", ["characterize", "--skip", "notify,,clock", "{run}"], r"empty item"),
    ("characterize --hosts with one host", ["characterize", "--hosts", "a", "{run}"], r"--hosts 'a': expected two"),
    (
        "characterize --hosts with a host twice",
        ["characterize", "--hosts", "localhost,LOCALHOST", "{run}"],
        r"localhost is listed twice; the pair needs two different hosts",
    ),
    (
        "characterize --hosts with a blank name",
        ["characterize", "--hosts", "localhost, ", "{run}"],
        r"a blank host name",
    ),
    (
        "characterize --launcher missing",
        ["characterize", "--launcher", "no-such-launcher", "{run}"],
        r"launcher 'no-such-launcher' not found",
    ),
    ("check --tolerance -5%", ["check", "{run}", "--baseline", "{dir}", "--tolerance", "-5%"], r"--tolerance '-5%'"),
    (
        "characterize --interference-args '--load-rate -1'",
        ["characterize", "--interference-args", "--load-rate -1", "--skip", "notify,clock,bandwidth", "{run}"],
        r"the interference step's options: --load-rate",
    ),
    ("characterize into a file", ["characterize", "{existing}"], r"existing.jsonl is a regular file"),
    ("characterize into a device", ["characterize", "{dev}"], r"null is a character device"),
    ("characterize into a directory with files", ["characterize", "{full}"], r"is not empty"),
    ("characterize under a file", ["characterize", "{existing}/run"], r"not a writable directory"),
    # characterize: each probe's options, checked by the probe before any step runs
    (
        "characterize --notify-args '--orders bogus'",
        ["characterize", "--notify-args", "--orders bogus", "{run}"],
        r"the notify step's options: --orders bogus: unknown memory order 'bogus'",
    ),
    (
        "characterize --interference-args '--load-rate 2'",
        ["characterize", "--interference-args", "--load-rate 2", "--skip", "notify,clock,bandwidth", "{run}"],
        r"the interference step's options: --load-rate 2: a fraction of the full rate must be above 0",
    ),
] + [
    (f"merge malformed {name}", ["merge", "-o", "{new}", "{tmp}/" + name], re.escape(name) + message)
    for name, (_, message) in MALFORMED.items()
]


def run_main(argv) -> int:
    try:
        return main(argv)
    except SystemExit as e:  # argparse's own usage errors
        return e.code


@pytest.mark.parametrize("argv, message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_exits_2_with_a_message_and_writes_nothing(scene, tmp_path, capsys, argv, message):
    if any("{dev}" in a for a in argv) and scene["dev"] is None:
        pytest.skip("this user may not make a device node")
    before = snapshot(tmp_path)
    code = run_main([a.format(tmp=tmp_path, **scene) for a in argv])
    err = capsys.readouterr().err
    assert code == 2, err
    assert re.search(message, err), err
    assert "Traceback" not in err and not re.search(r"\[\w+\.(cpp|hpp|py):\d+\]", err)  # no source location
    assert snapshot(tmp_path) == before  # nothing written, nothing replaced, devices still devices


def test_a_path_kind_is_typed_and_worded(tmp_path):
    """file_kind returns a FileKind the checks compare, whose text is what the messages say."""
    from hetprobe.data.paths import FileKind, file_kind

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "file").write_text("x")
    assert file_kind(tmp_path) is FileKind.DIRECTORY and file_kind(tmp_path / "file") is FileKind.REGULAR
    assert (
        file_kind(fifo) is FileKind.FIFO and f"is {file_kind(fifo)}" == "is a FIFO" and str(FileKind.FIFO) == "a FIFO"
    )
    assert file_kind(tmp_path / "none") is None
