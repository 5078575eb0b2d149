# A relative import that climbs above the top-level package.
import pkg.mod
# expect-error-at: pkg/mod.py:1: ImportError: attempted relative import beyond top-level package
