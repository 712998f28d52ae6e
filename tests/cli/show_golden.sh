#!/usr/bin/env bash
# Golden output of `hetprobe show`: the tables it prints from the committed
# results (notebooks/data), byte for byte, against tests/data/golden/. Every
# results file and a characterize run directory as a table; one file of each
# probe in every other --format.
#   show_golden.sh HETPROBE            compare (ctest cli.show_golden)
#   show_golden.sh --update HETPROBE   write the golden files again
# After a deliberate change to show's output: tests/cli/update_golden.sh,
# then review the change with git diff tests/data/golden.
set -euo pipefail
update=0
if [[ ${1:-} == --update ]]; then update=1; shift; fi
hp=$(realpath "$1")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
golden=$root/tests/data/golden
# Paths relative to the repository root, as run from there: headings name them.
cd "$root"
data=notebooks/data

# PATH FORMAT: one `hetprobe show PATH --format FORMAT`.
cases=()
for f in "$data"/*.jsonl "$data"/h200x2-load/*.jsonl "$data"/h200x2-characterize; do cases+=("$f table"); done
for f in h200-interference-sweep.jsonl h200-notify.jsonl h200-clock.jsonl h200x2-halo.jsonl h200-bandwidth.jsonl; do
  for format in csv json markdown; do cases+=("$data/$f $format"); done
done
cases+=("$data/h200x2-characterize json")

# The golden file of PATH FORMAT: PATH under notebooks/data, / as __, the format's extension.
golden_name() {
  local name=${1#"$data"/} ext
  name=${name%.jsonl}
  case $2 in table) ext=txt ;; markdown) ext=md ;; *) ext=$2 ;; esac
  echo "${name//\//__}.$ext"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=()
for c in "${cases[@]}"; do
  read -r path format <<<"$c"
  name=$(golden_name "$path" "$format")
  "$hp" show "$path" --format "$format" >"$work/$name" || { failed+=("$name (show exited $?)"); continue; }
  if ((update)); then
    mkdir -p "$golden" && cp "$work/$name" "$golden/$name"
  elif [[ ! -f $golden/$name ]]; then
    failed+=("$name (no golden file: tests/data/golden/$name)")
  elif ! diff -u "$golden/$name" "$work/$name" >"$work/$name.diff"; then
    echo "FAIL: hetprobe show $path --format $format differs from tests/data/golden/$name:"
    head -n 40 "$work/$name.diff"
    failed+=("$name")
  fi
done
# A golden file no case writes is a stale one.
if ((!update)); then
  for g in "$golden"/*; do
    found=0
    for c in "${cases[@]}"; do
      read -r path format <<<"$c"
      [[ $(golden_name "$path" "$format") == "$(basename "$g")" ]] && found=1 && break
    done
    ((found)) || failed+=("$(basename "$g") (no case writes it: remove it)")
  done
fi
if ((${#failed[@]})); then
  printf 'FAIL: %s\n' "${failed[@]}"
  echo "If the change is meant: tests/cli/update_golden.sh, then review git diff tests/data/golden"
  exit 1
fi
if ((update)); then echo "wrote ${#cases[@]} golden files in $golden"; else echo "OK: ${#cases[@]} outputs of show match tests/data/golden"; fi
