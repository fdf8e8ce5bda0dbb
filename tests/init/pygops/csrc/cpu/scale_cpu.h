#pragma once
#include "../extensions.h"

torch::Tensor scale_cpu(torch::Tensor x, double a);
