# A package's __init__ gathers its submodules' names with relative imports.
import model
print(model.build(3))
print(sorted(n for n in dir(model) if not n.startswith("_")))
# expect: Model(layers=[Layer(0), Layer(1), Layer(2)])
# expect: ['Layer', 'Model', 'build', 'layers', 'network']
