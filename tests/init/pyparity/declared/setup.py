# The packages are declared in pyproject.toml; setup.py only adds the extension.
from setuptools import Extension, setup

setup(ext_modules=[Extension("pkg._C", sources=["csrc/mod.c"])])
