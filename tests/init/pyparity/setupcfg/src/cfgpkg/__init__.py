__version__ = "2.3.0"


def info():
    print("cfgpkg", __version__)
