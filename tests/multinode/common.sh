# shellcheck shell=bash
# Shared by the tests across hosts (sourced): the test bed, the executable and
# the Python package under test, a step that must exit as expected, and the
# skip where namespaces cannot be made.
#   HETPROBE: the executable (default: build/bench/hetprobe); PYTHON: a Python
#   with the hetprobe package (default: .venv/bin/python). characterize runs
#   the same executable (HETPROBE_BIN_DIR).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=testbed.sh
source "$here/testbed.sh"
HETPROBE=$(realpath -m "${HETPROBE:-$root/build/bench/hetprobe}")
PYTHON=${PYTHON:-$root/.venv/bin/python}
export HETPROBE HETPROBE_BIN_DIR=${HETPROBE_BIN_DIR:-$(dirname "$HETPROBE")}
test_name=$(basename "$0" .sh)
# What a test writes, and each step's output: kept until the test runs again.
work=$root/build/multinode/$test_name
tb_log=$work/logs

# Exits 0 with "skipped: NAME: why" where the test bed cannot be made. As
# root without ip(8) (a minimal image), set-up installs iproute2 first.
skip_unless_testbed() {
  local why
  if [[ $(id -u) == 0 ]] && ! command -v ip >/dev/null; then
    # shellcheck source=../../bench/setup_apt.sh
    source "$root/bench/setup_apt.sh"
    apt_get install -y -qq --no-install-recommends iproute2 >/dev/null 2>&1 || true
  fi
  if ! why=$(testbed_can_run); then
    echo "skipped: multinode $test_name: $why"
    exit 0
  fi
  rm -rf "$work"
  mkdir -p "$tb_log"
}

# step NAME CODE COMMAND...: runs COMMAND, its output in $tb_log/NAME.log, and
# fails the test unless it exits CODE.
step() {
  local name=$1 want=$2 code=0 began=$SECONDS
  shift 2
  "$@" >"$tb_log/$name.log" 2>&1 || code=$?
  if ((code != want)); then
    echo "FAILED: $test_name: $name exited $code, expected $want; its output:" >&2
    tail -n 40 "$tb_log/$name.log" >&2
    exit 1
  fi
  echo "$test_name: $name: exit $code as expected ($((SECONDS - began)) s)"
}

# expect_in NAME TEXT: the output of step NAME says TEXT.
expect_in() {
  grep -qF -- "$2" "$tb_log/$1.log" || {
    echo "FAILED: $test_name: $1's output does not say '$2'; it says:" >&2
    tail -n 20 "$tb_log/$1.log" >&2
    exit 1
  }
}

check() { "$PYTHON" "$here/check_hosts.py" "$@"; }
