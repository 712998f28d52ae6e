#!/usr/bin/env bash
# The node model on a node with two GPUs, fitted, then checked against
# measured exchanges (issue 35 part 3; docs/metrics.md, "The node model"), in
# one command: build with the GPU backend; characterize's two load steps
# (interference and interference-rate with the default preset's options,
# pybindings/hetprobe/run/presets.py) into $results/char/; the bare exchange
# (tests/gpu/bare_exchange.cu) beside them; then MODEL_LAUNCHES (default 3)
# halo launches on two ranks over the paper's three cubes, the baseline and
# both notify variants, isend, pinned staging, 128 threads, every iteration's
# timeline kept (the baseline's pack and unpack lie outside its
# communication, the notify variants' inside it: two traffic levels); and
# `hetprobe model` of the fit against each launch (model-halo-K.txt, .json).
# Expects: every run exit 0 with its results written; each setup's median
# error within 10% in each launch (check_model.py). Exit 1 when an
# expectation fails, naming each.
#   tests/gpu/model.sh
# Results: $RESULTS_DIR (default build-gpu/model).
set -euo pipefail
default_results=model
launches=${MODEL_LAUNCHES:-3}  # checked before common.sh makes the results folder: bad input writes nothing
[[ $launches =~ ^[1-9][0-9]*$ ]] ||
  { echo "model.sh: MODEL_LAUNCHES=$launches: expected a whole number of launches, 1 or more" >&2; exit 2; }
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
build_gpu
expect_gpus 2 "$hetprobe"

step "characterize's load steps (default preset), one launch each"
mkdir -p "$results/char"
rm -f "$results"/char/*.jsonl
rounds=(--rounds 6 --reps 4 --warmup 1)
expect interference 0 --log "$results/char/interference.txt" -- mpirun -np 2 "$hetprobe" interference \
  --sizes 1KiB,64KiB,1MiB,16MiB --load all --load-gpus 1,all --layouts SSB,OWN --access stacked "${rounds[@]}" \
  --quiet --out "$results/char/interference.jsonl"
expect interference-rate 0 --log "$results/char/interference-rate.txt" -- mpirun -np 2 "$hetprobe" interference \
  --sizes 1KiB,64KiB,1MiB,16MiB --load write --load-rate 0.5,1 --load-gpus 1,all --layouts SSB,OWN,P2AB \
  --access stacked --no-host-stream "${rounds[@]}" --quiet --out "$results/char/interference-rate.jsonl"
grep -E " SSB " "$results/char/interference.txt" "$results/char/interference-rate.txt" || true
expect fit 0 --out "$results/model-fit.txt" -- "$hetprobe" model "$results/char"
cat "$results/model-fit.txt"

if [[ -x $build/tests/gpu/bare_exchange ]]; then  # built with the CUDA backend (tests/gpu/CMakeLists.txt)
  step "the bare exchange (tests/gpu/bare_exchange.cu)"
  expect bare-exchange 0 -- mpirun -np 2 "$build/tests/gpu/bare_exchange" | tee "$results/bare-exchange.txt"
fi

for ((k = 1; k <= launches; k++)); do
  step "halo launch $k of $launches, every iteration's timeline, and the model's prediction of it"
  rm -f "$results/halo-$k.jsonl"
  expect "halo-$k" 0 --log "$results/halo-$k.txt" -- mpirun -np 2 "$hetprobe" halo --cube 200,400,800 \
    --variants baseline,notify-stream,notify-stacked --send isend --staging pinned --threads 128 \
    --rounds 10 --iterations 5 --timeline all --quiet --out "$results/halo-$k.jsonl"
  expect "model-$k" 0 --out "$results/model-halo-$k.txt" -- \
    "$hetprobe" model "$results/char" --halo "$results/halo-$k.jsonl"
  "$hetprobe" model "$results/char" --halo "$results/halo-$k.jsonl" --format json >"$results/model-halo-$k.json" || true
  grep -A12 "^ cube" "$results/model-halo-$k.txt" || true
done

step "each prediction against its measurement"
expect predictions 0 -- python3 "$root/tests/gpu/check_model.py" "$results"/model-halo-*.json
finish
