#pragma once
#include "../extensions.h"

torch::Tensor shift_cuda(torch::Tensor x, double a);
