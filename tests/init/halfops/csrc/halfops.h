// halfops.h: the project's one header, included by every C++ source; it pulls in
// torch/extension.h (and with it Python.h and pybind11), as many projects' headers do.
#pragma once
#include <torch/extension.h>

#include "scale.cuh"

at::Tensor halfops_scale(const at::Tensor &x, double alpha);
