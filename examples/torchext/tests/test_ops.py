"""torchext against its pure-torch reference, on the CPU always and on CUDA when there is a GPU."""
import pytest
import torch

import torchext

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
SHAPES = [(0,), (1,), (7,), (1000,), (33, 257), (4, 1024, 3)]


def _gen(seed):
    g = torch.Generator().manual_seed(seed)
    return g


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("alpha", [1.0, -0.5, 3.25])
def test_scaled_add_matches_reference(device, shape, alpha):
    g = _gen(1)
    x = torch.randn(shape, generator=g).to(device)
    y = torch.randn(shape, generator=g).to(device)
    out = torchext.scaled_add(x, y, alpha)
    assert out.device.type == device and out.shape == x.shape
    torch.testing.assert_close(out, torchext.reference_scaled_add(x, y, alpha), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(1, 1), (5, 3), (64, 768), (2, 17, 129)])
def test_bias_gelu_matches_reference(device, shape):
    g = _gen(2)
    x = (3 * torch.randn(shape, generator=g)).to(device)
    bias = torch.randn(shape[-1], generator=g).to(device)
    out = torchext.bias_gelu(x, bias)
    torch.testing.assert_close(out, torchext.reference_bias_gelu(x, bias), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("device", DEVICES)
def test_non_contiguous_input(device):
    x = torch.randn(64, 32).to(device).t()
    y = torch.randn(32, 64).to(device)
    torch.testing.assert_close(torchext.scaled_add(x, y, 2.0), x + 2.0 * y)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", SHAPES)
def test_square_matches_reference(device, shape):
    x = torch.randn(shape, generator=_gen(3)).to(device)
    out = torchext.square(x)
    assert out.device.type == device and out.shape == x.shape
    torch.testing.assert_close(out, x * x, rtol=0, atol=0)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("s", [0.0, 1.5, -2.0])
def test_scale_matches_reference(device, shape, s):
    x = torch.randn(shape, generator=_gen(4)).to(device)
    out = torchext.scale(x, s)
    assert out.device.type == device and out.shape == x.shape
    torch.testing.assert_close(out, x * s, rtol=0, atol=0)


def test_ops_are_registered_with_torch():
    assert hasattr(torch.ops.torchext, "scaled_add")
    assert hasattr(torch.ops.torchext, "bias_gelu")
    assert hasattr(torch.ops.torchext, "square")
    assert hasattr(torch.ops.torchext, "scale")
    assert torchext._C.built_with_torch.split(".")[:2] == torch.__version__.split(".")[:2]


def test_wrong_dtype_is_refused():
    with pytest.raises(RuntimeError, match="float32"):
        torchext.scaled_add(torch.ones(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64))


def test_shape_mismatch_is_refused():
    with pytest.raises(RuntimeError, match="same shape"):
        torchext.scaled_add(torch.ones(3), torch.ones(4))
