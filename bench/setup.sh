#!/usr/bin/env bash
# Installs what hetprobe needs (Debian/Ubuntu, when missing) and builds it in
# $BUILD_DIR (default: build). Sourced by bench/run_node.sh and tests/run_all.sh.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}

required=(build-essential cmake ninja-build pkg-config git python3 python3-dev python3-venv openmpi-bin libopenmpi-dev libhwloc-dev
          libcli11-dev nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev)
optional=(hipcc libamdhip64-dev)  # the HIP backend; built wherever Debian/Ubuntu ship it

missing=()
for p in "${required[@]}" "${optional[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) == 0 ]] || sudo="sudo"
  echo "setup: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${required[@]}" >/dev/null
  for p in "${optional[@]}"; do
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$p" >/dev/null 2>&1 ||
      echo "setup: $p not available here; building without the HIP backend" >&2
  done
fi

# Open MPI refuses root unless told, and needs --oversubscribe on small machines.
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
mpirun_flags=()
if mpirun --version 2>/dev/null | grep -q "Open MPI"; then mpirun_flags+=(--oversubscribe); fi

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
grep -E "hetprobe (backends|[0-9])" "$build.configure.log" >&2 || true
cmake --build "$build" -j "$(nproc)"
