# `from . import x` and `from .x import y` inside a package.
from app import run
print(run())
# expect: config=debug helper=HELP
