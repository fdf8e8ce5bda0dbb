"""plainops: a _cpu and a _cuda extension module, each with its own build of csrc/variant.cpp."""
