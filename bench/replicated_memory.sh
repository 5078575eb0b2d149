#!/bin/sh
# A 1 GiB f32 array replicated on 256 simulated cpu devices must keep the
# process under 1.2 GiB resident (mesh-runtime issue): the host stores a
# replicated shard once and every device shares it. Prints the peak resident
# set size measured by /usr/bin/time -v and whether it is under the limit.
#
# Usage: bench/replicated_memory.sh [path/to/shardlang]
set -eu
. "$(dirname "$0")/shardlang_binary.sh"

program=$(mktemp --suffix=.shl)
report=$(mktemp)
trap 'rm -f "$program" "$report"' EXIT
cat > "$program" <<'SHL'
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
mesh = jax.make_mesh((256,), ('d',))
x = jax.device_put(jnp.zeros((16384, 16384), dtype=jnp.float32), NamedSharding(mesh, P()))
print('shape', x.shape, 'on', len(x.sharding.device_set), 'devices, spec', x.sharding.spec)
SHL

/usr/bin/time -v "$binary" run --platform cpu --devices 256 "$program" 2> "$report"
kib=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$report")
limit_kib=$((1200 * 1024 * 1024 / 1000))  # 1.2 GiB in KiB
gib=$(awk -v k="$kib" 'BEGIN { printf "%.3f", k / 1048576 }')
if [ "$kib" -lt "$limit_kib" ]; then
  echo "peak resident: $kib KiB ($gib GiB): under 1.2 GiB"
else
  echo "peak resident: $kib KiB ($gib GiB): NOT under 1.2 GiB"
  exit 1
fi
