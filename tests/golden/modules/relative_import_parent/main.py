# `from .. import x` and `from ..mod import y` reach the parent package.
import lib.sub.leaf as leaf
print(leaf.describe())
# expect: leaf sees lib.base and TOP from package lib.sub
