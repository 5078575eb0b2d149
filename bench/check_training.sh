#!/bin/sh
# `shardlang check` of one training step of the 96-layer 70B-shape model
# (examples/training_70b.shl: forward, backward and Adam, jitted, with the
# program's memory plan) on v5p at 256 and 4096 chips, without and with
# per-layer jax.checkpoint (TRAIN_REMAT=1). Target (issue 19): under 0.5 s
# of wall time at 4096 chips, and a peak RSS that does not grow with the
# arrays' sizes (the parameters alone are 140 GB).
#
# Prints, per configuration, the best and median wall time and the median
# CPU time (user + system) of 5 runs, the peak RSS (/usr/bin/time's maximum
# resident set size), and the peak RSS of an empty program's check. On a
# shared machine the CPU time is the steadier figure.
#
# Usage: bench/check_training.sh [path/to/shardlang]
set -eu
. "$(dirname "$0")/shardlang_binary.sh"

model="$root/examples/training_70b.shl"
empty=$(mktemp --suffix=.shl)
report=$(mktemp)
trap 'rm -f "$empty" "$report"' EXIT
echo "import jax" > "$empty"

/usr/bin/time -f "%M" -o "$report" "$binary" check --platform tpu --chip v5p --devices 4096 "$empty" > /dev/null
echo "empty program: peak RSS $(awk '{ printf "%.1f MiB", $1 / 1024 }' "$report")"

for devices in 256 4096; do
  for remat in 0 1; do
    if ! TRAIN_REMAT=$remat "$binary" check --platform tpu --chip v5p --devices "$devices" "$model" > /dev/null; then
      echo "check reported diagnostics for $model (devices $devices, TRAIN_REMAT=$remat)" >&2
      exit 1
    fi
    runs=""
    for _ in 1 2 3 4 5; do
      TRAIN_REMAT=$remat /usr/bin/time -f "%e %U %S %M" -o "$report" \
        "$binary" check --platform tpu --chip v5p --devices "$devices" "$model" > /dev/null
      runs="$runs$(cat "$report")
"
    done
    printf '%s' "$runs" | awk -v devices="$devices" -v remat="$remat" '
      NF == 4 { wall[NR] = $1; cpu[NR] = $2 + $3; rss = $4; n = NR }
      END {
        # sort the wall and CPU times (insertion sort: 5 values)
        for (i = 2; i <= n; i++) for (j = i; j > 1 && wall[j] < wall[j - 1]; j--) { t = wall[j]; wall[j] = wall[j - 1]; wall[j - 1] = t }
        for (i = 2; i <= n; i++) for (j = i; j > 1 && cpu[j] < cpu[j - 1]; j--) { t = cpu[j]; cpu[j] = cpu[j - 1]; cpu[j - 1] = t }
        m = int((n + 1) / 2)
        printf "check training_70b, %4d chips, remat %s: wall best %.3f s, median %.3f s; CPU median %.3f s; peak RSS %.1f MiB\n",
               devices, (remat == 1 ? "on " : "off"), wall[1], wall[m], cpu[m], rss / 1024
      }'
  done
done
