"""characterize's steps' probe options, checked by each probe before characterize runs or writes
anything: `hetprobe PROBE ... --check-options` parses and checks them as a run would (exit 2 with
the probe's own message), measuring nothing and writing nothing."""

from __future__ import annotations

import re
import subprocess

from .errors import UsageError
from .probes import binary, launch_env

CHECK_TIMEOUT_S = 120  # a check reads its options (and a halo layout file), nothing more


def check_step_options(steps) -> None:
    """Raises UsageError naming the first step (a Step: its probe and command) whose options its probe
    refuses (exit code 2). Each distinct command is checked once, without its launcher (one process
    suffices), all of them side by side: each check starts a process, and the run waits for them."""
    exe = binary()
    checks = {}  # command -> (step, process), in the steps' order
    try:
        for step in steps:
            command = tuple(step.command[step.command.index(exe) :] + ["--check-options"])
            if command not in checks:
                proc = subprocess.Popen(
                    command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=launch_env()
                )
                checks[command] = (step, proc)
        for step, proc in checks.values():
            try:
                _, err = proc.communicate(timeout=CHECK_TIMEOUT_S)
            except subprocess.TimeoutExpired as e:
                raise UsageError(f"the {step.probe} step: its options could not be checked ({e})") from None
            if proc.returncode != 2:  # 2: the options refused; anything else the step meets again when it runs
                continue
            lines = err.strip().splitlines() or [f"exit code {proc.returncode}"]
            why = re.sub(r"^hetprobe( \w+)?: (usage )?error: ", "", lines[-1])
            raise UsageError(f"the {step.probe} step's options: {why}")
    except OSError as e:
        raise UsageError(f"the steps' options could not be checked ({e})") from None
    finally:
        for _, proc in checks.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
