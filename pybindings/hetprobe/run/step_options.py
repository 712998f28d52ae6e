"""characterize's steps' probe options, checked by each probe before characterize runs or writes
anything: `hetprobe PROBE ... --check-options` parses and checks them as a run would (exit 2 with
the probe's own message), measuring nothing and writing nothing."""

from __future__ import annotations

import subprocess
from contextlib import ExitStack

from ..errors import UsageError
from .probes import binary, error_channel, launch_env

CHECK_TIMEOUT_S = 120  # a check reads its options (and a halo layout file), nothing more


def check_step_options(steps) -> None:
    """Raises UsageError naming the first step (a Step: its probe and command) whose options its probe
    refuses (exit code 2), with the probe's own message (its recorded error). Each distinct command is
    checked once, without its launcher (one process suffices), all of them side by side: each check
    starts a process, and the run waits for them."""
    exe = binary()
    checks = {}  # command -> (step, process, recorded errors), in the steps' order
    with ExitStack() as channels:
        try:
            for step in steps:
                command = tuple(step.command[step.command.index(exe) :] + ["--check-options"])
                if command not in checks:
                    env, recorded = channels.enter_context(error_channel(launch_env()))
                    proc = subprocess.Popen(
                        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env
                    )
                    checks[command] = (step, proc, recorded)
            for step, proc, recorded in checks.values():
                try:
                    _, err = proc.communicate(timeout=CHECK_TIMEOUT_S)
                except subprocess.TimeoutExpired as e:
                    raise UsageError(f"the {step.probe} step: its options could not be checked ({e})") from None
                if proc.returncode != 2:  # 2: the options refused; anything else the step meets again when it runs
                    continue
                errors = recorded()
                why = errors[0]["message"] if errors else (err.strip().splitlines() or ["exit code 2"])[-1]
                raise UsageError(f"the {step.probe} step's options: {why}")
        except OSError as e:
            raise UsageError(f"the steps' options could not be checked ({e})") from None
        finally:
            for _, proc, _ in checks.values():
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
