"""The shardlang binary a benchmark runs: the one given, or the newest build*/shardlang."""
import glob
import os
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def shardlang_binary(given=None):
    if given:
        return given
    built = sorted(glob.glob(os.path.join(root, "build*", "shardlang")), key=os.path.getmtime)
    if not built:
        sys.exit("no shardlang binary: build it, or pass its path")
    return built[-1]
