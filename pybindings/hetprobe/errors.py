"""Exceptions of the hetprobe package, one per kind of hetprobe::Error.

The compiled module raises these (hetprobe._core maps the C++ ErrorKind), and
the pure-Python parts raise them too, so a caller catches one family.
"""


class HetprobeError(Exception):
    """Any error hetprobe reports."""


class UsageError(HetprobeError, ValueError):
    """Bad input: an option, size, layout or file the user gave (the CLI's exit code 2)."""


class DeviceError(HetprobeError, RuntimeError):
    """A backend (CUDA, HIP, host threads) call failed."""


class ProbeTimeout(HetprobeError, TimeoutError):
    """A bounded wait (a flag, a kernel, a peer) gave up."""


class MPIError(HetprobeError, RuntimeError):
    """An MPI call failed, or an MPI run (mpirun/srun) exited with an error."""


class ResultsFileError(HetprobeError, ValueError):
    """A results file is corrupt (a bad line that is not the last) or is not a hetprobe results file."""


class CheckFailed(HetprobeError, RuntimeError):
    """A probe's own verification failed."""


class Interrupted(HetprobeError, KeyboardInterrupt):
    """The probe was interrupted (SIGINT/SIGTERM); finished measurements were kept."""


class Unsupported(HetprobeError, NotImplementedError):
    """This backend or device cannot do what was asked."""
