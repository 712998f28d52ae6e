#!/usr/bin/env bash
# Installs what hetprobe needs (Debian/Ubuntu, only what is missing), makes
# mpirun work as root, and builds hetprobe in $BUILD_DIR (default: build).
# Sourced by bench/run_node.sh and tests/run_all.sh. Sets $root, $build,
# $mpirun_flags, $cmake_checks, and build_tree for other build trees.
#   HETPROBE_WITH_HIP=1: install hipcc and HIP even where no AMD GPU is seen (CI
#   does, so the HIP backend stays compiled); HETPROBE_WITH_HIP=0: never.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}

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

required=(build-essential cmake ninja-build pkg-config git python3 python3-dev python3-venv python3-jsonschema openmpi-bin libopenmpi-dev libhwloc-dev
          libcli11-dev nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev)
optional=()  # the HIP backend: only where it can run, or when asked
case ${HETPROBE_WITH_HIP:-auto} in
  1 | on | yes) optional=(hipcc libamdhip64-dev) ;;
  0 | off | no) ;;
  *) if amd_gpu_present; then optional=(hipcc libamdhip64-dev); fi ;;
esac

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
missing=()
for p in "${required[@]}" "${optional[@]}"; do installed "$p" || missing+=("$p"); done
setup_installed_packages=0
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) == 0 ]] || sudo="sudo"
  echo "setup: installing ${missing[*]}" >&2
  # On a fresh machine unattended-upgrades can hold apt's lock for minutes:
  # wait for it (up to 10 min, apt says so) rather than fail at once.
  apt=(apt-get -o DPkg::Lock::Timeout=600)
  if command -v fuser >/dev/null && fuser /var/lib/dpkg/lock-frontend /var/lib/apt/lists/lock >/dev/null 2>&1; then
    echo "setup: another apt (unattended-upgrades?) holds the package lock; waiting for it, up to 10 min" >&2
  fi
  $sudo "${apt[@]}" update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y -qq --no-install-recommends "${required[@]}" >/dev/null
  for p in "${optional[@]}"; do
    $sudo env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y -qq --no-install-recommends "$p" >/dev/null 2>&1 ||
      echo "setup: $p not available here; building without the HIP backend" >&2
  done
  setup_installed_packages=1  # a backend's compiler may be new: build trees reconfigure
fi

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
build_tree "$build" -DCMAKE_BUILD_TYPE=Release "${cmake_checks[@]}"
