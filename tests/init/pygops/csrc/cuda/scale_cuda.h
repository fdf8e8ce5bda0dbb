#pragma once
#include "../extensions.h"

torch::Tensor scale_cuda(torch::Tensor x, double a);
