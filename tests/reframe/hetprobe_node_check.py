"""ReFrame test: every GPU of a node, measured by `hetprobe characterize` and held to references.

The test runs characterize once on the node (it starts its own ranks, one per GPU, through mpirun or
srun: the job itself is one task), checks that every step finished (characterize.json: every step
"ok"), and turns each GPU's numbers into performance variables named gpu<N>_<metric>, each compared
with its reference: characterize.json's per_gpu rows' "numbers", by the records' field (roundtrip_ns,
launch_sync_ns, write_gbs, read_gbs, copy_d2h_gbs, copy_h2d_gbs, clock_drift_ppm, clock_precision_ns,
link_speed_gts, link_width), each with its unit, as hetprobe writes them; where the interference
pair runs (skip_steps without it), also headline_warm_ratio and headline_cold_ratio, the headline's
ratios to SSB from characterize.json's "headline".

References come from a JSON file (variable reference_file), shaped as ReFrame's reference dict:
{"system:partition" (or "*"): {"gpu0_write_gbs": [value, lower, upper, "GB/s"], ...}}, lower and
upper as fractions of value (null: no bound). references/host-ci.json holds loose bounds for the
simulated devices of the host backend (CI). A site records its own from a node it knows to be good:

    hetprobe characterize good-node-run                      # on the good node
    python3 tests/reframe/make_references.py good-node-run --system mycluster:gpu --tolerance 10% \\
        > references/mycluster.json
    reframe -C tests/reframe/config/generic.py -c tests/reframe/hetprobe_node_check.py -r \\
        -S reference_file=$PWD/references/mycluster.json -S device=cuda

Run here (host backend, 2 simulated devices, quick):

    HETPROBE_HOST_DEVICES=2 reframe -C tests/reframe/config/generic.py \\
        -c tests/reframe/hetprobe_node_check.py -r
"""

import json
import os
import shlex
import sys

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import run_after, run_before, sanity_function, variable
from reframe.core.exceptions import SanityError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_references import variables  # noqa: E402  (which numbers are variables: one owner, beside this file)

RUN_DIR = "hetprobe-run"


def _manifest(stagedir):
    with open(os.path.join(stagedir, RUN_DIR, "characterize.json")) as f:
        return json.load(f)


@sn.deferrable
def _value(stagedir, name):
    return variables(_manifest(stagedir))[name][0]


@rfm.simple_test
class hetprobe_node_check(rfm.RunOnlyRegressionTest):
    descr = "Every GPU of the node (hetprobe characterize, one rank per GPU) against references"
    valid_systems = ["*"]
    valid_prog_environs = ["*"]
    #: The hetprobe command (an installed package's, or e.g. "python3 -m hetprobe").
    hetprobe = variable(str, value="hetprobe")
    #: characterize's backend: auto, cuda, hip, host.
    device = variable(str, value="auto")
    #: characterize --quick: short runs (the CI's host backend).
    quick = variable(bool, value=False)
    #: Steps not to run: the interference pair measures no single GPU.
    skip_steps = variable(str, value="interference")
    #: Extra characterize options, as one shell string.
    extra_options = variable(str, value="")
    #: The references (see the module's doc); a relative path is under this file's folder.
    reference_file = variable(str, value="references/host-ci.json")
    num_tasks = 1  # characterize starts the per-GPU ranks itself
    time_limit = "15m"
    tags = {"hetprobe", "gpu"}

    @run_after("init")
    def set_command(self):
        self.executable = self.hetprobe + " characterize"
        self.executable_opts = ["--device", self.device, "--progress", "lines", "--skip", self.skip_steps]
        self.executable_opts += ["--quick"] if self.quick else []
        self.executable_opts += shlex.split(self.extra_options) + [RUN_DIR]

    @run_after("init")
    def load_references(self):
        path = os.path.join(HERE, self.reference_file)
        with open(path) as f:
            self.reference = {system: {k: tuple(v) for k, v in refs.items()} for system, refs in json.load(f).items()}

    @sanity_function
    def every_step_ok(self):
        try:
            steps = _manifest(self.stagedir)["steps"]
        except (OSError, ValueError, KeyError) as e:
            raise SanityError(f"no characterize.json to read ({e}): see the job's output") from None
        failed = [f"{s['probe']} {s['status']}: {s.get('error')}" for s in steps if s["status"] != "ok"]
        if not steps or failed:
            raise SanityError(f"characterize steps not ok: {failed or 'none ran'}")
        return True

    @run_before("performance")
    def per_gpu_variables(self):
        """One performance variable per number the run measured (make_references.variables: each GPU's
        numbers by metric key, the interference headline's ratios where the pair ran), with its unit;
        a number the run lacks is left out."""
        self.perf_variables = {
            name: sn.make_performance_function(_value(self.stagedir, name), unit)
            for name, (_, unit, _) in variables(_manifest(self.stagedir)).items()
        }
