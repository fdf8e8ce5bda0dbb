"""tinyraster: a small CUDA triangle rasteriser in the style of Hunyuan3D's and nvdiffrast's.

Functions
---------
``rasterize(V, F, width, height, D=None, occlusion_truncation=1e-6, use_depth_prior=False)``
    Rasterise on the GPU. Returns ``(face_ids, bary)``.
``interpolate(attr, face_ids, bary, F)``
    Interpolate per-vertex attributes over a rasterised image on the GPU.
``rasterize_cpu(...)``, ``interpolate_cpu(...)``
    The same with the C reference implementation; no GPU needed. The GPU results equal these
    exactly (face ids, barycentrics and interpolated values are bit-identical by construction).
``cuda_available()``, ``device_count()``, ``device_info(device=0)``
    What CUDA sees. The GPU functions raise ``RuntimeError("no CUDA device is available: ...")``
    with the CUDA error string when there is no usable device.

Arrays
------
Inputs are any C-contiguous object with the buffer protocol: numpy arrays, ``array.array``,
``memoryview`` (for example ``memoryview(buf).cast('f', (n, 4))``), or ``bytes``/``bytearray``
taken as raw native float32/int32 storage. Flat 1-D inputs are accepted where the shape follows
(``V`` of ``4*N`` floats, ``F`` of ``3*M`` ints, ``D`` of ``H*W`` floats, ``attr`` of ``N``
values meaning one channel). Wrong dtypes raise ``TypeError``; wrong shapes, non-contiguous
inputs and out-of-range indices raise ``ValueError`` naming the argument and the problem.
Outputs are ``memoryview`` objects with a shape and a format, so ``numpy.asarray(out)`` is the
array without a copy, and ``out.tolist()`` works without numpy.

- ``V``: float32 ``[N, 4]`` clip-space positions ``(x, y, z, w)``.
- ``F``: int32 ``[M, 3]`` vertex indices.
- ``D``: float32 ``[height, width]`` depth prior, in the same units as ``z / w``.
- ``face_ids``: int32 ``[height, width]``: ``0`` is background, ``k`` means face ``F[k - 1]``
  (face index + 1, as Hunyuan3D's ``rasterize_image``).
- ``bary``: float32 ``[height, width, 3]``: perspective-correct barycentrics of the face's three
  vertices; ``0`` on background.
- ``attr``: float32 or float16 ``[N, C]``; the result of ``interpolate`` has the same dtype,
  shape ``[height, width, C]``, and is ``0`` on background. float16 is computed in float32 and
  rounded to nearest even. Before Python 3.12, ``memoryview`` has no float16 format: there the
  float16 result is returned as a numpy float16 array when numpy is importable, else as a
  ``memoryview`` of format ``'H'`` holding the binary16 bits.

Conventions (those of Hunyuan3D's rasterizer)
---------------------------------------------
- Screen mapping: ``sx = (x/w * 0.5 + 0.5) * (width - 1) + 0.5`` and likewise ``sy`` with
  ``height``: NDC -1 and +1 land on the centres of the first and last pixels. Pixels are
  sampled at their centres ``(px + 0.5, py + 0.5)``. Row 0 is ``y/w = -1`` (no vertical flip).
- A pixel centre on an edge belongs to every face sharing that edge; the z-test picks one.
- Depth: ``d = z/w * 0.49999 + 0.5``, interpolated linearly in screen space. Fragments with
  ``d < 0`` (in front of the near plane) are dropped.
- Z-buffer: the key ``(uint32(d * 2**18) << 32) | (face + 1)`` and the smallest key wins, so the
  nearest face wins and faces whose depths quantise equally break ties toward the lowest face
  index, on GPU (64-bit ``atomicMin``) and CPU alike: the result is deterministic.
- Depth prior (``use_depth_prior=True``): a fragment is kept only if
  ``d >= D[py, px] * 0.49999 + 0.5 + occlusion_truncation``, i.e. it lies behind the prior
  surface by at least ``occlusion_truncation`` (depth peeling: pass the previous layer's
  ``z / w`` as ``D``; use ``-inf`` or ``-2`` where there was no surface). Without a prior,
  ``D`` and ``occlusion_truncation`` are ignored.
- Faces with any vertex of ``w <= 0`` or non-finite coordinates are culled: there is no
  near-plane clipping.
"""

from importlib import metadata as _metadata

from . import _C
from ._mesh import grid_mesh, random_mesh

try:
    __version__ = _metadata.version("tinyraster")
except _metadata.PackageNotFoundError:  # imported from a source tree, not installed
    __version__ = "0+unknown"

__all__ = [
    "rasterize",
    "interpolate",
    "rasterize_cpu",
    "interpolate_cpu",
    "cuda_available",
    "device_count",
    "device_info",
    "grid_mesh",
    "random_mesh",
    "__version__",
]


def rasterize(V, F, width, height, D=None, occlusion_truncation=1e-6, use_depth_prior=False):
    """Rasterise triangles on the GPU; returns ``(face_ids [H, W] int32, bary [H, W, 3] float32)``.

    ``V`` is float32 ``[N, 4]`` clip space, ``F`` int32 ``[M, 3]``. With ``use_depth_prior``,
    ``D`` (float32 ``[height, width]``, ``z / w`` units) rejects fragments that are not behind it
    by ``occlusion_truncation``. Raises ``RuntimeError`` when no CUDA device is available.
    """
    return _C.rasterize(V, F, width, height, D, occlusion_truncation, use_depth_prior)


def rasterize_cpu(V, F, width, height, D=None, occlusion_truncation=1e-6, use_depth_prior=False):
    """:func:`rasterize` computed by the C reference; the GPU gives identical results."""
    return _C.rasterize_cpu(V, F, width, height, D, occlusion_truncation, use_depth_prior)


def interpolate(attr, face_ids, bary, F):
    """Interpolate per-vertex ``attr`` (float32/float16 ``[N, C]``) on the GPU.

    ``face_ids`` and ``bary`` come from :func:`rasterize`; returns ``[H, W, C]`` of attr's dtype,
    zero on background.
    """
    return _half_fix(_C.interpolate(attr, face_ids, bary, F))


def interpolate_cpu(attr, face_ids, bary, F):
    """:func:`interpolate` computed by the C reference; the GPU gives identical results."""
    return _half_fix(_C.interpolate_cpu(attr, face_ids, bary, F))


def _half_fix(out):
    # float16 results come back as uint16 bits where memoryview lacks format 'e' (< 3.12).
    if out.format != "H":
        return out
    try:
        import numpy
    except ImportError:
        return out
    return numpy.frombuffer(out, dtype=numpy.float16).reshape(out.shape)


def cuda_available():
    """True when the CUDA runtime finds at least one device."""
    return _C.cuda_available()


def device_count():
    """Number of CUDA devices; 0 when there is none or no driver."""
    return _C.device_count()


def device_info(device=0):
    """A dict describing CUDA device ``device``: name, compute capability, multiprocessors,
    total memory, driver and runtime versions. Raises ``RuntimeError`` when there is none."""
    return _C.device_info(device)
