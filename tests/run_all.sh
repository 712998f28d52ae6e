#!/usr/bin/env bash
# The whole test suite: set up, build, and run every test that needs no GPU:
# unit, device suite on the host backend, CLI bad-input and MPI on 2 ranks
# (ctest), then the Python package installed by pip: loading, plots, merge,
# in-process probes, characterize, batch scripts, and every notebook executed
# headless (pytest). GPU tests: tests/gpu/run.sh on a GPU node.
source "$(dirname "$0")/../bench/setup.sh"
ctest --test-dir "$build" -LE gpu --output-on-failure -j "$(nproc)"
source "$root/bench/setup_python.sh"
cd "$root"
"$python" -m pytest -q tests/python
