"""A run's GPUs one by one, for the notebooks.

characterize on a node of several GPUs runs notify, clock and bandwidth on one rank per GPU, so their
records hold one set per GPU; the package's notify tables and figures show one GPU (the lowest rank).
The notebooks show each GPU's, labelled as hetprobe.per_gpu names them (the rank that measured it,
and its PCI address); a run of one GPU is shown as it is, without a label.
"""

from __future__ import annotations

import pandas as pd

import hetprobe


def labels(results) -> dict[int, str]:
    """{rank: "GPU 1 (0000:00:07.0)"} of every GPU the results measured on its own rank, in rank order;
    {0: "GPU 0"} where they have no per-GPU record."""
    table = hetprobe.per_gpu(results)
    out = {
        int(gpu): f"GPU {int(gpu)}" + (f" ({pci})" if isinstance(pci, str) and pci else "")
        for gpu, pci in zip(table["GPU"], table["PCI address"])
    }
    return out or {0: "GPU 0"}


def each(results) -> list[tuple[str, object]]:
    """(label, the results of that GPU alone) per GPU; [("", results)] where they hold one GPU."""
    gpus = labels(results)
    if len(gpus) == 1:
        return [("", results)]
    return [(label, results.only_rank(rank)) for rank, label in gpus.items()]


def joined(tables: dict, axis: int = 0) -> pd.DataFrame:
    """{label: one GPU's table} as one table: a "GPU" level first on `axis` (0: the rows, 1: the columns)
    where there are several GPUs, the table as it is for one. attrs: the first GPU's."""
    first = next(iter(tables.values()))
    if len(tables) == 1:
        return first
    table = pd.concat(tables, axis=axis, names=["GPU"])
    table.attrs.update(first.attrs)
    return table


def titled(figure, label: str):
    """The figure with its GPU's label before its title ("" for a run of one GPU: as it is)."""
    if label:
        figure.suptitle(f"{label}: {figure.get_suptitle()}")
    return figure


def prefix(label: str) -> str:
    """What starts a GPU's line of text, "GPU 1 (0000:00:07.0): "; "" for a run of one GPU."""
    return f"{label}: " if label else ""
