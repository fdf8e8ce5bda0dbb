"""pygops: the ops scale and shift, each loaded from its _cuda library when the wheel has one,
else its _cpu library, as torch_scatter loads its libraries (torch.ops.load_library: the
libraries define no PyInit_ on Linux)."""
import importlib.machinery
import os.path as osp

import torch

for library in ["_scale", "_shift"]:
    cuda_spec = importlib.machinery.PathFinder().find_spec(f"{library}_cuda", [osp.dirname(__file__)])
    cpu_spec = importlib.machinery.PathFinder().find_spec(f"{library}_cpu", [osp.dirname(__file__)])
    spec = cuda_spec or cpu_spec
    if spec is None:
        raise ImportError(f"pygops: no {library}_cuda or {library}_cpu library")
    torch.ops.load_library(spec.origin)


def cuda_version():
    """The CUDA version the libraries were built with, -1 for CPU-only libraries."""
    return torch.ops.pygops.cuda_version()


def scale(x, a):
    return torch.ops.pygops.scale(x, a)


def shift(x, b):
    return torch.ops.pygops.shift(x, b)
