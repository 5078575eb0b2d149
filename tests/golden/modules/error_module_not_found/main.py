# A module found nowhere: ModuleNotFoundError naming it; the note says where it looked.
import helper
import missing_module  # expect-error: ModuleNotFoundError: No module named 'missing_module'
# expect-stderr: note: looked for missing_module.py, missing_module.shl and a package missing_module/ in: .
