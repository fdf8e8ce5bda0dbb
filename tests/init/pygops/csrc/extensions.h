// extensions.h: what the implementations include, as PyG's csrc/extensions.h (torch/torch.h,
// which brings torch/extension.h and Python.h under -DTORCH_API_INCLUDE_EXTENSION_H).
#pragma once
#include <torch/torch.h>
