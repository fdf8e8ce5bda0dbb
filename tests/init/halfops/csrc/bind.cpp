// bind.cpp: the module (PyInit__halfops_c).
#include "halfops.h"

PYBIND11_MODULE(_halfops_c, m)
{
	m.def("scale", &halfops_scale, "x * alpha, x a CUDA half tensor");
}
