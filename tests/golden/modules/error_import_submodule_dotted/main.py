# `import pkg.absent`: ModuleNotFoundError with the full dotted name.
import pkg
import pkg.absent  # expect-error: ModuleNotFoundError: No module named 'pkg.absent'
# expect-stderr: note: looked for absent.py, absent.shl and a package absent/ in: pkg
