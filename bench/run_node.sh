#!/usr/bin/env bash
# The main job: set up, build, install the Python package (its runtime
# dependencies only: the test tools are tests/run_all.sh's), and characterise
# this node with `hetprobe characterize` (a GPU backend where there is a GPU,
# else CPU threads, and the report says which): topology, notification costs,
# the clock relation and the interference sweep on two ranks. Writes
# hetprobe-results/characterize-<host>-<UTC time>/ with every result (JSON
# Lines), report.md + PNG plots, report.html, and prints a summary.
# Extra arguments go to `hetprobe characterize` (see its --help).
source "$(dirname "$0")/setup.sh"
cd "$root"
exec "$hetprobe_command" characterize "$@"
