#!/bin/sh
# `shardlang check --profile` of a 96-layer transformer forward pass and loss
# with the shapes of a 70B model (FSDP x tensor parallel on a 16x16 v5p mesh,
# examples/transformer_96_layers.shl; 140 GB of weights): the estimated step
# time and its top lines. Target: under 0.5 s of wall time, and no
# allocation proportional to array sizes: the peak RSS
# must stay near that of checking an empty program.
#
# Prints the best and median wall time of 5 runs, the peak RSS of the model's
# check and of an empty program's, and whether the targets are met.
#
# Usage: bench/check_transformer.sh [path/to/shardlang]
set -eu
. "$(dirname "$0")/shardlang_binary.sh"

model="$root/examples/transformer_96_layers.shl"
empty=$(mktemp --suffix=.shl)
report=$(mktemp)
trap 'rm -f "$empty" "$report"' EXIT
echo "import jax" > "$empty"
flags="--profile --platform tpu --chip v5p --devices 256"

# shellcheck disable=SC2086
if ! "$binary" check $flags "$model" > /dev/null; then
  echo "check reported diagnostics for $model" >&2
  exit 1
fi

times=""
for _ in 1 2 3 4 5; do
  # shellcheck disable=SC2086
  /usr/bin/time -f "%e %M" -o "$report" "$binary" check $flags "$model" > /dev/null
  times="$times $(cut -d' ' -f1 "$report")"
  model_kib=$(cut -d' ' -f2 "$report")
done
# shellcheck disable=SC2086
/usr/bin/time -f "%e %M" -o "$report" "$binary" check $flags "$empty" > /dev/null
empty_kib=$(cut -d' ' -f2 "$report")

echo "$times" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk -v model_kib="$model_kib" -v empty_kib="$empty_kib" '
  { t[NR] = $1 }
  END {
    best = t[1]; median = t[int((NR + 1) / 2)]
    printf "shardlang check --profile, 96-layer 70B transformer on 16x16 v5p: best %.3f s, median %.3f s (target < 0.5 s): %s\n",
           best, median, (median < 0.5 ? "ok" : "SLOW")
    printf "peak RSS %.1f MiB (empty program %.1f MiB; the weights alone are 140 GB): %s\n",
           model_kib / 1024, empty_kib / 1024, (model_kib < empty_kib + 64 * 1024 ? "ok" : "TOO LARGE")
    exit (median < 0.5 && model_kib < empty_kib + 64 * 1024) ? 0 : 1
  }'
