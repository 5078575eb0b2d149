# A model package reads its config: json.load of a file beside it, found
# through pathlib from the module's own __file__.
from model import load_config, describe
config = load_config()
print(describe(config))
print(sorted(config), config["layers"][1])
# expect: tiny: 2 layers, d_model=64, rope=True, lr=0.0003
# expect: ['dropout', 'layers', 'name', 'optimizer', 'rope'] {'d_ff': 256, 'heads': 4}
