from .config import load_config, describe
