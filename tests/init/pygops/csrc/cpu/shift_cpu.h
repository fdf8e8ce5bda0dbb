#pragma once
#include "../extensions.h"

torch::Tensor shift_cpu(torch::Tensor x, double a);
