"""torchstable: saxpy (a * x + y) for float32 tensors on the CPU and on CUDA devices, built once
against torch's stable ABI for every torch from the one it was built with."""
import torch

from . import _C  # noqa: F401  (registers torch.ops.torchstable.saxpy)

__all__ = ["saxpy"]


def saxpy(a: float, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Returns a * x + y, computed with one fused multiply-add per element."""
    return torch.ops.torchstable.saxpy(float(a), x, y)
