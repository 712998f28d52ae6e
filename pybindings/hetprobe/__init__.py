"""hetprobe: how the CPU and the GPU of a node get in each other's way, and how
fast they can tell each other things.

Run probes::

    import hetprobe
    r = hetprobe.notify(orders="volatile,fence", parts="roundtrip")   # in this process
    c = hetprobe.clock(span=2)                                       # in this process
    t = hetprobe.topology()                                          # hwloc, as a dict
    i = hetprobe.run_mpi("interference", sizes="1KiB:1MiB:x4")      # mpirun/srun, 2 ranks
    run = hetprobe.characterize("run-dir", quick=True)               # every probe, every GPU, a report

Options are the CLI's (``hetprobe notify --help``), as keywords: ``orders=``
for ``--orders``, lists joined by commas, ``True`` for a flag.

Analyse results::

    r = hetprobe.load("hetprobe-results/")   # a file, a directory or a list
    r.summary, r.samples                     # tidy pandas DataFrames
    hetprobe.plots.send_time(r)              # the paper's Figures 6 to 11
    hetprobe.plots.slowdown_vs_traffic(r)    # MPI_Send slowdown against the GPU traffic during it
    r.load_gpus()                            # per point and load GPU: placement, rates, traffic
    hetprobe.per_gpu("run-dir")              # a characterize run: one row per GPU, units in the names
    hetprobe.check("run-dir", "good-run")    # each GPU's numbers against a known-good node's: a table
    hetprobe.halo_rates("halo.jsonl", "bandwidth.jsonl")  # long messages' pack/unpack GB/s vs plain kernels
    hetprobe.model("RUN_DIR", halo="halo.jsonl")  # the node model, and its prediction of a halo run

Results files are JSON Lines; their schema is docs/results-schema.md.
"""

from importlib.metadata import PackageNotFoundError, version as _installed_version

try:  # written once, in CMakeLists.txt's project(); pip records it in the package's metadata
    __version__ = _installed_version("hetprobe")
except PackageNotFoundError:  # imported from a source tree that pip has not installed
    __version__ = "unknown"

from . import plots
from .data.halo import halo_rates
from .data.load import load
from .data.merge import merge
from .data.model import model
from .data.results import Results
from .data.units import size_label
from .errors import (
    CheckFailed,
    DeviceError,
    HetprobeError,
    Interrupted,
    MPIError,
    ProbeTimeout,
    ResultsFileError,
    Unsupported,
    UsageError,
)
from .node.check import check
from .node.gpus import per_gpu
from .report.headline import headline_table
from .report.parts import interference_parts, paper_view
from .run.characterize import characterize
from .run.probes import binary, clock, devices, help, notify, run_mpi, topology

__all__ = [
    "Results",
    "load",
    "merge",
    "plots",
    "notify",
    "clock",
    "topology",
    "devices",
    "run_mpi",
    "help",
    "binary",
    "characterize",
    "per_gpu",
    "check",
    "headline_table",
    "interference_parts",
    "paper_view",
    "halo_rates",
    "model",
    "size_label",
    "HetprobeError",
    "UsageError",
    "DeviceError",
    "ProbeTimeout",
    "MPIError",
    "ResultsFileError",
    "CheckFailed",
    "Interrupted",
    "Unsupported",
]
