// variant.cpp: a kernel source both extensions list, compiled with each one's defines; it
// includes no Python header, so it is compiled once per (toolkit, flags), not per Python.
#include <string>

#include "plainops.h"

static const std::string name =
#ifdef WITH_CUDA
    "cuda";
#elif defined(PLAINOPS_CPU)
    "cpu";
#else
    "none";
#endif

extern "C" const char *plainops_variant(void)
{
	return name.c_str();
}
