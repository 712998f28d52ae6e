#!/usr/bin/env bash
# The whole test suite: set up, build, and run every test that needs no GPU
# (unit, device suite on the host backend, CLI bad-input, MPI on 2 ranks).
# GPU tests: tests/gpu/run.sh on a GPU node.
source "$(dirname "$0")/../bench/setup.sh"
ctest --test-dir "$build" -LE gpu --output-on-failure -j "$(nproc)"
