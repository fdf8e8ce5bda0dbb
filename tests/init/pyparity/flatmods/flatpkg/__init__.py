from . import _speed  # noqa: F401
