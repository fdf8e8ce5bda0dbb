from setuptools import Extension, setup

setup(ext_modules=[Extension("cfgpkg._native", sources=["csrc/native.c"])])
