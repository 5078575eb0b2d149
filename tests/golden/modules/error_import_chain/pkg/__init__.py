from . import inner
