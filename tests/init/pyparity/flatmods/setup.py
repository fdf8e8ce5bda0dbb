from setuptools import Extension, setup

setup(
    name="flatmods",
    version="1.0",
    packages=["flatpkg"],
    py_modules=["flathelper"],
    package_data={"flatpkg": ["*.cfg"]},
    install_requires=["packaging"],
    extras_require={"docs": ["sphinx>=7"], ":sys_platform == 'linux'": ["numpy"]},
    ext_modules=[Extension("flatpkg._speed", sources=["csrc/speed.c"])],
)
