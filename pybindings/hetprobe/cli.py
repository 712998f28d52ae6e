"""The ``hetprobe`` command (and ``python -m hetprobe``): the Python
subcommands (characterize, report, merge, check) and every probe of the compiled
executable, which it runs in place of this process. The executable's --help
lists them all (bench/cli/main.cpp names the Python ones too)."""

from __future__ import annotations

import os
import subprocess
import sys

from .errors import HetprobeError, UsageError


def _report(argv: list[str]) -> int:
    """`hetprobe report DIR`: 0 when the report is complete, 1 when it was written for a partial run
    (a step failed or stopped, a file could not be read: the report says which), 2 for bad input
    (not a run directory, nothing in it, not writable; then nothing is written)."""
    import argparse

    from .report.write import printed_summary, write_report

    p = argparse.ArgumentParser(
        prog="hetprobe report",
        description="Write report.md, report.html, the plots "
        "and summary.txt of a run directory, complete or partial (hetprobe characterize "
        "writes them itself). Exit code 0: complete; 1: written, but the run is "
        "incomplete (the report says what is missing); 2: bad input, nothing written.",
    )
    p.add_argument("directory")
    a = p.parse_args(argv)
    try:
        written = write_report(a.directory)
    except HetprobeError as e:
        print(f"hetprobe report: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # checked before writing; what is left is the system's (a full disk)
        print(f"hetprobe report: error: {e.filename or a.directory}: {e.strerror or e}", file=sys.stderr)
        return 1
    sys.stdout.write(printed_summary(a.directory))
    return 1 if written.problems else 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--debug"]:  # for every command: error messages name their source line
        os.environ["HETPROBE_DEBUG"] = "1"
        argv = argv[1:]
    command = argv[0] if argv else ""
    if command == "characterize":
        from .run.command import main as characterize_main

        return characterize_main(argv[1:])
    if command == "report":
        return _report(argv[1:])
    if command == "merge":
        from .data.merge import main as merge_main

        return merge_main(argv[1:])
    if command == "check":
        from .node.check import main as check_main

        return check_main(argv[1:])
    from .run.probes import binary

    try:
        exe = binary()
    except UsageError as e:
        print(f"hetprobe: {e}", file=sys.stderr)
        return 2
    if command in ("", "-h", "--help"):
        done = subprocess.run([exe, "--help"], capture_output=True, text=True)
        sys.stdout.write(done.stdout)
        return 0 if command else 2
    sys.stdout.flush()
    os.execv(exe, [exe] + argv)  # the probe replaces this process: signals and exit codes are its own


def entry_point() -> None:
    sys.exit(main())
