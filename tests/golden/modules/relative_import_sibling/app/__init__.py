from .main_module import run
