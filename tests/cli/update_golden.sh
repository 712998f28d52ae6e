#!/usr/bin/env bash
# Writes tests/data/golden/ again from what `hetprobe show` prints now, after a
# deliberate change to its output; review with git diff tests/data/golden.
#   tests/cli/update_golden.sh [HETPROBE]   (default: build/bench/hetprobe)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
exec "$root/tests/cli/show_golden.sh" --update "${1:-$root/build/bench/hetprobe}"
