"""torchext: fused scaled_add and bias_gelu for PyTorch (CUDA kernels, CPU path).

Importing the package loads torchext._C, which registers torch.ops.torchext.*.
"""
import torch  # first: it loads libtorch, libc10 and the CUDA runtime the extension needs

from . import _C  # noqa: F401  (registers the ops)

__all__ = ["scaled_add", "bias_gelu", "square", "scale", "reference_scaled_add", "reference_bias_gelu"]


def scaled_add(x: torch.Tensor, y: torch.Tensor, alpha: float = 1.0) -> torch.Tensor:
    """x + alpha * y, fused (float32)."""
    return torch.ops.torchext.scaled_add(x, y, float(alpha))


def bias_gelu(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """gelu(x + bias) with the tanh approximation, fused (float32, bias along the last dim)."""
    return torch.ops.torchext.bias_gelu(x, bias)


def square(x: torch.Tensor) -> torch.Tensor:
    """x * x (float32); its CUDA kernel is csrc/square.cu, its binding binding/square.cpp."""
    return torch.ops.torchext.square(x)


def scale(x: torch.Tensor, s: float) -> torch.Tensor:
    """s * x (float32); its kernel and binding are binding/scale.cu, which includes
    torch/extension.h."""
    return torch.ops.torchext.scale(x, float(s))


def reference_scaled_add(x, y, alpha=1.0):
    """The pure-torch reference of scaled_add."""
    return x + alpha * y


def reference_bias_gelu(x, bias):
    """The pure-torch reference of bias_gelu."""
    return torch.nn.functional.gelu(x + bias, approximate="tanh")
