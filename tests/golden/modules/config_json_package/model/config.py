import json
from pathlib import Path

CONFIG = Path(__file__).parent / "configs" / "tiny.json"


def load_config(path=CONFIG):
    with open(path) as f:
        return json.load(f)


def describe(config):
    d_model = config["layers"][0]["d_model"]
    return (f"{config['name']}: {len(config['layers'])} layers, d_model={d_model}, "
            f"rope={config['rope']}, lr={config['optimizer']['lr']}")
