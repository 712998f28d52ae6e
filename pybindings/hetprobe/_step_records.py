"""How many records each step of characterize will write, read from its header's config as the probe
sweeps it, so that progress can show done/total and the time left (an estimate: a probe that writes
more than expected only moves its total up)."""

from __future__ import annotations

from ._frames import paper_config

_COPY_KINDS = ("copy-d2h", "copy-h2d")
# bench/notify.cpp: 4 flag mechanisms and 8 launch ones (notify_mechanism_count()).
_NOTIFY_MECHANISMS = 12


def family(step: str) -> str:
    """The probe a step runs: "interference-rate" is the interference probe."""
    return step.split("-")[0]


def interference_points(config: dict) -> int:
    """Points an interference run will write, from its header's config (as bench/interference.cpp sweeps)."""
    paper = paper_config(config)
    layouts = config.get("layouts", [])
    moving = len([lay for lay in layouts if lay != "SSB"])
    per_size = 0
    for i, _ in enumerate(config.get("access", [])):
        per_size += "SSB" in layouts
        for kind in ["write"] if paper else config.get("loads", []):
            if kind == "none" or (kind in _COPY_KINDS and i > 0):
                continue
            gpus = 1 if paper else len([g for g in config.get("load_gpus", []) if g > 0])
            rates = 1 if paper else len(config.get("load_rates", []))
            per_size += gpus * rates * moving
    return len(config.get("sizes_bytes", [])) * per_size


def expected_records(probe: str, header: dict) -> int | None:
    """Records a probe will write, from its header's config (None when unknown)."""
    config = header.get("config", {})
    if not isinstance(config, dict):
        return None
    if family(probe) == "interference":
        return interference_points(config) + bool(config.get("host_stream"))
    if probe == "clock":
        return config.get("batches", 0) + 2  # fitted batches, the check batch, the fit
    if probe == "notify":  # as bench/notify.cpp run_notify loops
        parts = config.get("parts", [])
        setups = len(config.get("orders", [])) * len(config.get("placements", [])) * len(config.get("spacings", []))
        return (4 * setups * ("overhead" in parts) + 2 * setups * ("roundtrip" in parts)
                + _NOTIFY_MECHANISMS * ("mechanisms" in parts))
    return None
