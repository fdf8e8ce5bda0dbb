"""twoext: add and mul, each in its own extension module."""
import torch  # noqa: F401

from twoext import _add, _mul


def info():
    print("twoext", _add.version(), _mul.version())
