"""torchstable's op against a reference computed here, on the CPU and (where there is one) on a
CUDA device, with the torch of the test venv (each torch of the axis in turn)."""
import numpy as np
import pytest
import torch

import torchstable


def reference(a, x, y):
    # The op fuses a * x + y into one float32 fma: compute it in float64 and round once.
    return (np.float64(np.float32(a)) * x.numpy().astype(np.float64) + y.numpy()).astype(np.float32)


def test_saxpy_cpu_matches_fused_reference():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(10_007, generator=g)
    y = torch.randn(10_007, generator=g)
    out = torchstable.saxpy(1.5, x, y)
    assert out.dtype == torch.float32 and out.shape == x.shape
    np.testing.assert_array_equal(out.numpy(), reference(1.5, x, y))


def test_saxpy_refuses_other_dtypes():
    with pytest.raises(RuntimeError, match="float32"):
        torchstable.saxpy(2.0, torch.ones(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64))


def test_saxpy_refuses_mismatched_sizes():
    with pytest.raises(RuntimeError, match="as many elements"):
        torchstable.saxpy(2.0, torch.ones(3), torch.ones(4))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
def test_saxpy_cuda_equals_cpu():
    g = torch.Generator().manual_seed(2)
    x = torch.randn(1 << 20, generator=g)
    y = torch.randn(1 << 20, generator=g)
    cpu = torchstable.saxpy(-0.75, x, y)
    gpu = torchstable.saxpy(-0.75, x.cuda(), y.cuda()).cpu()
    assert torch.equal(cpu, gpu)
