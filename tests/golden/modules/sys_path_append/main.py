# sys.path is a list the script may extend; a later import searches it.
import sys
try:
    import extra_module
except ModuleNotFoundError as e:
    print(e)
sys.path.append("vendor")
import extra_module
print(extra_module.VALUE)
print(sys.path[-1])
# expect: No module named 'extra_module'
# expect: from vendor
# expect: vendor
