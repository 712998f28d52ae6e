#!/usr/bin/env bash
# On a GPU node, in one command: install the Python package (`pip install .`,
# into $HETPROBE_PYTHON's environment when set, as on a machine without
# network, else into .venv), run the main job `hetprobe characterize` with its
# defaults and time it, then run the in-process probes on the GPU from Python.
#   HETPROBE_PYTHON=/path/to/python tests/gpu/python.sh [characterize options]
# Results: $RESULTS_DIR (default build-gpu/python): characterize/ (the run
# directory) and python-inprocess.txt.
set -euo pipefail
default_results=python
source "$(dirname "$0")/common.sh"

step "pip install . (build log: $results/pip-install.log)"
start=$(date +%s)
source "$root/bench/setup_python.sh" >"$results/pip-install.log" 2>&1 || { tail -40 "$results/pip-install.log"; exit 1; }
echo "installed in $(($(date +%s) - start)) s: $("$python" -c 'import hetprobe._core as c; print(c.version, c.git_revision)')"

step "hetprobe characterize (defaults)"
rm -rf "$results/characterize"
start=$(date +%s%N)
"$hetprobe_command" characterize "$@" "$results/characterize"
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
echo "characterize wall time: $((elapsed_ms / 1000)).$(printf %03d $((elapsed_ms % 1000))) s"

step "in-process probes from Python on the GPU"
"$python" - <<'PY' | tee "$results/python-inprocess.txt"
import hetprobe
print(hetprobe.devices()["auto_reason"])
r = hetprobe.notify(parts="roundtrip", orders="volatile,fence", exchanges=5000)
rt = r.summary[r.summary["metric"] == "roundtrip_ns"]
print(rt[["cpu_order", "gpu_order", "direction", "n", "median", "p10", "p90"]].to_string(index=False))
c = hetprobe.clock(span=2, check_after=1)
print(c.summary[c.summary["record"] == "clock_fit"][["drift_ppm", "precision_ns", "samples_used"]].to_string(index=False))
PY
