#!/usr/bin/env bash
# On a GPU node, in one command: install the Python package (`pip install .`,
# into $HETPROBE_PYTHON's environment when set, as on a machine without
# network, else into .venv), run the main job `hetprobe characterize` with its
# defaults and time it, then run the in-process probes on the GPU from Python.
# Expects: the install exit 0; --device auto a GPU; characterize exit 0 with
# every step ok and its characterize.json, summary.txt and report.md written;
# docs/python.md's "Read a run" examples run as written on that run directory,
# and load_table's numbers equal to report.md's loads table (read_a_run.py);
# the in-process probes on that GPU (not the host backend) with round trips and
# a clock fit to show. Exit 1 when an expectation fails, naming each.
#   HETPROBE_PYTHON=/path/to/python tests/gpu/python.sh [characterize options]
# Results: $RESULTS_DIR (default build-gpu/python): characterize/ (the run
# directory), read-a-run.txt and python-inprocess.txt.
set -euo pipefail
default_results=python
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"

start=$(date +%s)
install_package
echo "installed in $(($(date +%s) - start)) s: $("$python" -c 'import hetprobe._core as c; print(c.version, c.git_revision)')"
expect_gpus 1 "$hetprobe_command"

step "hetprobe characterize (defaults)"
rm -rf "$results/characterize"
start=$(date +%s%N)
expect characterize 0 -- "$hetprobe_command" characterize "$@" "$results/characterize"
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
echo "characterize wall time: $((elapsed_ms / 1000)).$(printf %03d $((elapsed_ms % 1000))) s"
expect "characterize steps ok" 0 -- python3 "$checks" steps-ok "$results/characterize"
expect_files "$results"/characterize/{characterize.json,summary.txt,report.md}
step "the run read as docs/python.md reads it; load_table against the report's loads table"
expect "read a run" 0 -- "$python" "$(dirname "$0")/read_a_run.py" "$results/characterize" |
  tee "$results/read-a-run.txt"

step "in-process probes from Python on the GPU"
expect "in-process probes on the GPU" 0 -- "$python" "$(dirname "$0")/check_inprocess.py" | tee "$results/python-inprocess.txt"
finish
