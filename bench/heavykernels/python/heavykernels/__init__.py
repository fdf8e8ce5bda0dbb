"""heavykernels: cuwheel's benchmark kernel set (GEMM, softmax, LayerNorm, gaussian splatting).

Device memory is passed as integer addresses, e.g. ``tensor.data_ptr()``.
"""
from ._C import BF16, F16, F32, gemm, runtime_version, softmax, variants

__all__ = ["F32", "F16", "BF16", "gemm", "softmax", "variants", "runtime_version"]
