#!/usr/bin/env bash
# Sets up hetprobe (Debian/Ubuntu) in three stages, each announced with what
# it will cost and timed ("setup: [2/3] build ... done in 380 s"):
#   [1/3] dependencies: the packages that are missing (waiting for apt's lock
#         when another apt holds it), and the venv .venv with the build tools
#   [2/3] build: the C++ in $BUILD_DIR (default: build), once: the executables,
#         the tests and the Python module hetprobe._core
#   [3/3] Python package: `pip install .` into .venv from that same tree
#         (nothing compiled again), with its runtime dependencies only
# and makes mpirun work as root. Sourced by bench/run_node.sh and
# tests/run_all.sh. Sets $root, $build, $python, $hetprobe_command,
# $mpirun_flags, $cmake_checks, and build_tree for other build trees.
#   HETPROBE_WITH_HIP=1: install hipcc and HIP even where no AMD GPU is seen (CI
#   does, so the HIP backend stays compiled); HETPROBE_WITH_HIP=0: never.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
source "$root/bench/setup_apt.sh"
setup_stages=3
source "$root/bench/setup_python.sh"

setup_began=$SECONDS
stage_began=$SECONDS
stage_name=""
# stage N NAME [WHAT IT COSTS]: announces stage N; stage_done: its time.
stage() {
  stage_name="[$1/$setup_stages] $2"
  stage_began=$SECONDS
  echo "setup: $stage_name${3:+: $3} ..." >&2
}
stage_done() { echo "setup: $stage_name ... done in $((SECONDS - stage_began)) s" >&2; }

# An AMD GPU: the ROCm kernel driver's node, or a PCI display/accelerator of vendor AMD (0x1002).
amd_gpu_present() {
  [[ -e /dev/kfd ]] && return 0
  local dev
  for dev in /sys/bus/pci/devices/*; do
    [[ $(cat "$dev/vendor" 2>/dev/null) == 0x1002 ]] || continue
    [[ $(cat "$dev/class" 2>/dev/null) == 0x03* || $(cat "$dev/class" 2>/dev/null) == 0x12* ]] && return 0
  done
  return 1
}

required=(build-essential cmake ninja-build pkg-config git python3 python3-dev python3-venv python3-jsonschema openmpi-bin libopenmpi-dev libhwloc-dev zlib1g-dev
          libcli11-dev nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev)
optional=()  # the HIP backend: only where it can run, or when asked
case ${HETPROBE_WITH_HIP:-auto} in
  1 | on | yes) optional=(hipcc libamdhip64-dev) ;;
  0 | off | no) ;;
  *) if amd_gpu_present; then optional=(hipcc libamdhip64-dev); fi ;;
esac

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
stage 1 dependencies "the packages that are missing, and the Python environment with its build tools"
missing=()
for p in "${required[@]}" "${optional[@]}"; do installed "$p" || missing+=("$p"); done
setup_installed_packages=0
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]} (apt: a few minutes on a fresh machine)" >&2
  apt_get update -qq
  apt_get install -y -qq --no-install-recommends "${required[@]}" >/dev/null
  for p in "${optional[@]}"; do
    apt_get install -y -qq --no-install-recommends "$p" >/dev/null 2>&1 ||
      echo "setup: $p not available here; building without the HIP backend" >&2
  done
  setup_installed_packages=1  # a backend's compiler may be new: build trees reconfigure
fi
setup_python_env
# The Python module is built in the C++ tree, by the interpreter's pybind11
# (with $HETPROBE_PYTHON and no pybind11 there, pip builds it apart, as before).
python_module=()
package_build_dir=""
if pybind11_dir=$("$python" -m pybind11 --cmakedir 2>/dev/null); then
  python_module=(-DHETPROBE_ENABLE_PYTHON=ON "-DPython_EXECUTABLE=$python" "-Dpybind11_DIR=$pybind11_dir")
  package_build_dir=$build
fi
stage_done

# Open MPI refuses root unless told, and needs --oversubscribe on small machines.
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
mpirun_flags=()
if mpirun --version 2>/dev/null | grep -q "Open MPI"; then mpirun_flags+=(--oversubscribe); fi

# build_tree DIR [CMAKE_ARGS...]: configures DIR when it has no build system, its
# arguments changed or packages were just installed (else the build tool reruns
# CMake itself when a CMakeLists changes), then builds it. Log: DIR.configure.log.
build_tree() {
  local dir=$1
  shift
  local args="$*" stamp=$dir/hetprobe-configure-args
  if [[ ! -f $dir/build.ninja || ! -f $stamp || $(<"$stamp") != "$args" ]] || ((setup_installed_packages)); then
    rm -f "$stamp"
    cmake -S "$root" -B "$dir" -G Ninja "$@" >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; return 1; }
    grep -E "hetprobe (backends|sanitizers|[0-9])" "$dir.configure.log" >&2 || true
    printf '%s' "$args" >"$stamp"
  fi
  cmake --build "$dir" -j "$(nproc)"
}

# CI=true (CI services set it; .ci/run does) makes warnings errors: not for
# everyone, since a newer compiler may warn where CI's does not.
cmake_checks=()
if [[ ${CI:-} == true ]]; then cmake_checks=(-DHETPROBE_WERROR=ON); fi
if [[ -f $build/build.ninja ]]; then
  stage 2 build "$build, only what changed"
else
  stage 2 build "$build, the first time: 7 CPU-minutes, about 4 min on 2 idle cores and longer beside other work (Ninja counts the steps)"
fi
build_tree "$build" -DCMAKE_BUILD_TYPE=Release "${cmake_checks[@]}" "${python_module[@]}"
stage_done

stage 3 "Python package" "hetprobe and its runtime dependencies into $(dirname "$(dirname "$python")")"
setup_python_package
stage_done
echo "setup: ready in $((SECONDS - setup_began)) s" >&2
hetprobe_path_hint
