# `import a as b` and `import pkg.mod as m` bind the module under the new name only.
import helper as h
import pkg.inner as inner
print(h.NAME, inner.NAME)
try:
    helper
except NameError as e:
    print(e)
# expect: helper pkg.inner
# expect: name 'helper' is not defined
