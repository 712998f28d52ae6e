# shellcheck shell=bash
# Sourced by the CLI test scripts here: $work, a fresh directory removed when
# the script exits, and `fail MESSAGE...`, which says FAIL and exits 1.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
