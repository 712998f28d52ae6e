"""The node model (`hetprobe model`): the MPI path's alpha and beta and its slowdown under GPU traffic,
fitted from a characterize run, and its predictions of a halo run's communication time. Fitted and
predicted in C++ (bench/model/); this module reads the document and shapes it for pandas."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..errors import UsageError
from .paths import path_argument


@dataclass(frozen=True)
class NodeModel:
    """`hetprobe model RUN [--halo FILE] --format json`, read: `document` as C++ wrote it, `fit` one row
    per parameter (alpha in s and beta in s/B over every size; segment_alpha_s and segment_beta_s_per_byte
    per segment, `bytes` to `to_bytes` on one side of the eager limit (`rendezvous`), the line that
    predicts a message of that size; gamma per message size in 1/(GB/s): median over the interference
    run's rounds, ci95_low and ci95_high their 95% interval, NaN under 6 rounds; "implausible" why no
    send can have the value, as C++ marks it (a negative latency or inverse bandwidth, a slowdown the
    points do not span), else NaN), and
    `predictions` one row per halo setup (measured and predicted communication time per iteration,
    medians in ns, the GPU traffic in that window in GB/s, error = predicted / measured - 1 with its
    median and 95% interval over the iterations)."""

    document: dict
    fit: pd.DataFrame
    predictions: pd.DataFrame


def _row(name: str, value: dict, **extra) -> dict:
    low, high = value["ci95"] if value["ci95"] is not None else (float("nan"), float("nan"))
    return {
        "parameter": name,
        **extra,
        "median": value["median"],
        "ci95_low": low,
        "ci95_high": high,
        "rounds": value["rounds"],
        "implausible": value.get("implausible"),
    }


def _run_path(run) -> str:
    """The path C++ fits from: `run` itself, or the one run directory (or file) a Results was read from."""
    from .results import Results

    if not isinstance(run, Results):
        return path_argument(run, "run")
    if len(run.files) == 1:
        return str(run.files[0])
    places = {str(Path(f).parent) for f in run.files}
    if len(places) == 1:
        return places.pop()
    raise UsageError(f"hetprobe.model: these results come from {len(places)} folders; give one run directory")


def model(run, halo=None) -> NodeModel:
    """The node model of `run` (a `hetprobe characterize` run directory, an interference results file,
    or a Results read from one of them) and, given `halo` (a halo results file of the same node: two
    ranks, --timeline all), its prediction of each setup's communication time against the measured one.
    UsageError for a run without the series the fit needs, a halo run of another node, or a layout it
    cannot place."""
    import json

    from .. import _rules  # the compiled module: the fit and the prediction are computed once, in C++

    doc = json.loads(_rules.node_model(_run_path(run), "" if halo is None else path_argument(halo, "halo")))
    fit = doc["fit"]
    rows = [
        _row(name, fit[name], bytes=None, to_bytes=None, rendezvous=None) for name in ("alpha_s", "beta_s_per_byte")
    ]
    rows += [
        _row(f"segment_{name}", s[name], bytes=s["from_bytes"], to_bytes=s["to_bytes"], rendezvous=s["rendezvous"])
        for s in fit["segments"]
        for name in ("alpha_s", "beta_s_per_byte")
    ]
    rows += [
        _row("gamma_per_gbs", s["gamma_per_gbs"], bytes=s["bytes"], to_bytes=None, rendezvous=None)
        for s in fit["slowdown"]
    ]
    keep = [
        "layout",
        "cube",
        "setup",
        "variant",
        "iterations",
        "measured_comm_ns_median",
        "predicted_comm_ns_median",
        "traffic_gbs_median",
        "error_median",
    ]
    predictions = pd.DataFrame(
        [
            {
                **{k: p[k] for k in keep},
                "error_ci95_low": p["error_ci95"][0] if p["error_ci95"] else float("nan"),
                "error_ci95_high": p["error_ci95"][1] if p["error_ci95"] else float("nan"),
            }
            for p in doc["predictions"]
        ],
        columns=keep + ["error_ci95_low", "error_ci95_high"],
    )
    return NodeModel(doc, pd.DataFrame(rows), predictions)
