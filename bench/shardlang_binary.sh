# Sourced by the shell benchmarks: sets `root` (the repository) and `binary`
# (the shardlang binary to measure: the benchmark's first argument, else the
# newest build*/shardlang).
root=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-}
if [ -z "$binary" ]; then
  binary=$(ls -t "$root"/build*/shardlang 2>/dev/null | head -n 1)
fi
[ -x "$binary" ] || { echo "no shardlang binary: build it, or pass its path" >&2; exit 2; }
