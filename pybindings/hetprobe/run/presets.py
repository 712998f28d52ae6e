"""characterize's steps and their presets: which probes run, with which options (default and
--quick), how many launches each interference step gets, and the bounds of characterize's own options."""

from __future__ import annotations

import re

from ..errors import UsageError

# Presets: the defaults aim at 30 s plus 15 s per GPU for the steps (on four H200s, 2026-11-27: 88.0-89.5
# s; per step docs/probes/characterize.md, "How long it takes"). --quick is for tests and a first look
# (on 2 CPU cores with one host device about 7 s for the per-GPU steps and 10 s per launch of the
# interference steps).
# bandwidth: the plain passes of the per-GPU table, the persistent writer, and the write load, during
# which the GPU's PCIe link is read (an idle NVIDIA GPU lowers its link speed).
# interference: each size in rounds, each visiting every point once (--reps sends per visit after
# --warmup): 6 rounds are the fewest that give one launch's ratio a 95% interval, [q(1), q(6)]
# (docs/metrics.md, "Rounds and confidence intervals"). The loads step, which the headline rests on,
# runs as 3 launches (DEFAULT_LAUNCHES): one launch's headline did not repeat on an H100, three did.
_ROUNDS = {"rounds": 6, "reps": 4, "warmup": 1}
_QUICK_ROUNDS = {"rounds": 6, "reps": 2, "warmup": 1}
_LOAD_SIZES = "1KiB,64KiB,1MiB,16MiB"
# The loads in pinned allocations of their own (OWN), as an application's buffers are; the rate step
# measures the paper's P2AB beside it (the sender's load 2 MiB past the send buffer), in the same rounds.
_LOADS = {"layouts": "SSB,OWN", "access": "stacked"}
# Cold sends: the sender spins 2 ms before each timed send (an application computes between sends),
# the GPU idle (SSB) and under every load from the sender's GPU; each visit times warm sends too,
# interleaved, so that cold ÷ warm is paired round by round.
_COLD = {**_LOADS, "load": "all", "gap": "2ms", "no_host_stream": True}
# Each step's options as the Python API's keywords (hetprobe.notify(exchanges=5000), ...): the CLI's
# long options, "-" written "_" (options_to_args makes the arguments; a test holds every keyword to
# the probe's own options).
# gpus: every GPU in 6 shuffled rounds per launch (the node verdict's numbers), each visit 1000 round
# trips, 200 launches and 3 passes of each kind over 64 MiB: about 60 ms a visit on an H100.
PRESETS = {
    "default": {
        "gpus": {"rounds": 6},
        # Half notify's own defaults: medians of 5000 round trips and 1000 mechanism samples are as
        # steady, and the run keeps to its budget. The loop on an owned line (overhead) takes 20
        # samples of 1000 pairs, not 100: its GPU side was 80% of notify's time (0.6 s per order
        # and GPU), and its samples agree to within 1% (p10 to median).
        "notify": {"exchanges": 5000, "mechanism_samples": 1000, "overhead_samples": 20},
        # Every GPU's clock at once (--concurrent): each rank ping-pongs its own GPU through its own
        # link, and the span no longer grows with the GPU count (tests/gpu/clock_turns.sh holds the
        # fits to those taken in turn). Drift to about 1 ppm at 1.2 us precision.
        "clock": {"span": 2.5, "check_after": 0.5, "concurrent": True},
        # 5 passes of 50 ms each for the persistent writer and the write load (40 passes over
        # 256 MiB at 50 GB/s): 1 s per GPU, not 2.
        "bandwidth": {"size": "256MiB", "reps": 5, "duration": 0.05, "load": "write"},
        # Every load kind at full rate, from the sender's GPU and from every GPU.
        "interference": {"sizes": _LOAD_SIZES, "load": "all", "load_gpus": "1,all", **_LOADS, **_ROUNDS},
        # The write load at half and full rate, from 1 and from all GPUs, in an allocation of its own and
        # 2 MiB past the send buffer (P2AB): slowdown against rate and against placement, in the same rounds.
        "interference-rate": {
            "sizes": _LOAD_SIZES,
            "load": "write",
            "load_rate": "0.5,1",
            "load_gpus": "1,all",
            "layouts": "SSB,OWN,P2AB",
            "access": "stacked",
            "no_host_stream": True,
            **_ROUNDS,
        },
        # The paper's configuration: its writer in a message-sized buffer, every layout, both access modes.
        "interference-paper": {"paper": True, "sizes": "1KiB:16MiB:x16", "no_host_stream": True, **_ROUNDS},
        # 10 rounds: cold ÷ warm gets the interval [q(2), q(9)] of its rounds, not 6 rounds' min and max.
        "interference-cold": {"sizes": "1KiB,1MiB", **_COLD, "rounds": 10, "reps": 4, "warmup": 1},
    },
    "quick": {
        "gpus": {"rounds": 6, "size": "8MiB", "exchanges": 200, "launch_samples": 50, "reps": 2},
        "notify": {"overhead_samples": 20, "exchanges": 1000, "mechanism_samples": 200},
        "clock": {"span": 2, "check_after": 1, "batches": 4, "samples": 100},
        "bandwidth": {"size": "64MiB", "reps": 3, "duration": 0.05, "load": "write"},
        "interference": {
            "sizes": "1KiB,64KiB",
            "load": "all",
            "load_gpus": "1,all",
            "load_bytes": "8MiB",
            **_LOADS,
            **_QUICK_ROUNDS,
        },
        "interference-rate": {
            "sizes": "64KiB",
            "load": "write",
            "load_rate": "0.5,1",
            "load_gpus": "1,all",
            "load_bytes": "8MiB",
            "layouts": "SSB,OWN,P2AB",
            "access": "stacked",
            "no_host_stream": True,
            **_QUICK_ROUNDS,
        },
        "interference-paper": {"paper": True, "sizes": "1KiB:1MiB:x16", "no_host_stream": True, **_QUICK_ROUNDS},
        "interference-cold": {"sizes": "1KiB,64KiB", "load_bytes": "8MiB", **_COLD, **_QUICK_ROUNDS},
    },
}
PROBES = (
    "gpus",
    "notify",
    "clock",
    "bandwidth",
    "interference",
    "interference-rate",
    "interference-paper",
    "interference-cold",
)
# Each launch of these is a separate mpirun/srun into its own file (named, not taken by their place in PROBES).
LAUNCHED_STEPS = ("interference", "interference-rate", "interference-paper", "interference-cold")
# Launches of each interference step without --launches: the headline's step 3, the fewest that give a
# pooled point its interval from the launches' spread; the others 1, so the run keeps to its budget.
DEFAULT_LAUNCHES = {"interference": 3}
# The gpus step's launches (one rank per GPU each): the node verdict's interval spans them, so a process's
# own state cannot flag a GPU, and a baseline of 2 or more launches has a measured launch-to-launch
# spread. Spread over the run (the first, after the per-GPU steps, after the interference steps).
GPU_LAUNCHES, QUICK_GPU_LAUNCHES, MIN_GPU_LAUNCHES = 3, 2, 2
# Run only when asked (--paper): the paper's configuration, a GPU writing a message-sized buffer beside
# the send buffer, is not what applications do; the default measures what they do within its budget.
ON_REQUEST = ("interference-paper",)
MAX_LAUNCHES = 100
PER_GPU_STEPS = ("notify", "clock", "bandwidth")  # one rank per device, one launch
VERDICT_STEP = "gpus"  # one rank per device, GPU_LAUNCHES launches, and a re-measure when a GPU is flagged
MAX_TIMEOUT_S = 7 * 24 * 3600  # --timeout bounds a whole probe; a week is past any sensible sweep
MAX_REPS = 1_000_000  # --reps; the interference probe may refuse fewer (it checks its own memory)


def _options(words: list[str]) -> list[list[str]]:
    """["--a", "1", "--b", "--c", "x"] as [["--a", "1"], ["--b"], ["--c", "x"]]: each option with its values."""
    groups: list[list[str]] = []
    for word in words:
        if word.startswith("--") or not groups:
            groups.append([word])
        else:
            groups[-1].append(word)
    return groups


def overridden(preset: list[str], given: list[str]) -> list[str]:
    """The preset's options less those the user gives, then the user's: a probe takes each option once."""
    named = {group[0].split("=")[0] for group in _options(given)}
    kept = [group for group in _options(preset) if group[0].split("=")[0] not in named]
    return [word for group in kept for word in group] + given


def parse_launches(text: str) -> int:
    """--launches' value: a whole number (checked with the other options by _check_options)."""
    if not re.fullmatch(r"[0-9]+", text.strip()):  # str.isdigit() takes "²", which int() refuses
        raise UsageError(f"--launches {text!r}: expected a whole number of launches from 1 to {MAX_LAUNCHES}")
    return int(text)


def launches_of(step: str, launches: int | None, quick: bool = False) -> int:
    """How many launches a step gets. An interference step: --launches, else its default
    (DEFAULT_LAUNCHES; --quick, a first look: 1). The gpus step: --launches but never under
    MIN_GPU_LAUNCHES, else GPU_LAUNCHES (--quick: QUICK_GPU_LAUNCHES)."""
    if step == VERDICT_STEP:
        if launches is not None:
            return max(MIN_GPU_LAUNCHES, launches)
        return QUICK_GPU_LAUNCHES if quick else GPU_LAUNCHES
    if launches is not None:
        return launches
    return 1 if quick else DEFAULT_LAUNCHES.get(step, 1)
