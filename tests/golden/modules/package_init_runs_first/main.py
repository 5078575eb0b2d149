# Importing a submodule runs the package's __init__ first, once.
import shapes.circle
import shapes.square
print(shapes.VERSION, shapes.circle.area(1), shapes.square.area(3))
print(shapes.loaded)
# expect: init shapes
# expect: load shapes.circle
# expect: load shapes.square
# expect: 2 3.14 9
# expect: ['shapes.circle', 'shapes.square']
