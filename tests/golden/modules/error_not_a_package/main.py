# A plain module has no submodules.
import plain
import plain.sub  # expect-error: ModuleNotFoundError: No module named 'plain.sub'; 'plain' is not a package
