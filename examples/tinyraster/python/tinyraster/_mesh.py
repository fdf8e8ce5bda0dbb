"""Deterministic test meshes as flat ``array.array`` buffers (no numpy needed)."""

import array
import math

__all__ = ["grid_mesh", "random_mesh"]


def grid_mesh(nx, ny, z=0.0, w=1.0, extent=1.0):
    """A regular grid of ``2 * nx * ny`` triangles covering NDC [-extent, extent]^2 at depth ``z``.

    With ``extent=1`` the outer edges pass exactly through the centres of the border pixels
    (Hunyuan3D's screen mapping), where coverage is decided by rounding: use a slightly larger
    extent to cover every pixel for sure.

    Returns ``(V, F)``: ``V`` float32 of ``(nx+1)*(ny+1)*4`` values (clip space, every vertex
    with the given ``w``, positions premultiplied by it), ``F`` int32 of ``nx*ny*2*3`` indices.
    """
    V = array.array("f")
    for j in range(ny + 1):
        for i in range(nx + 1):
            x = extent * (-1.0 + 2.0 * i / nx)
            y = extent * (-1.0 + 2.0 * j / ny)
            V.extend((x * w, y * w, z * w, w))
    F = array.array("i")
    for j in range(ny):
        for i in range(nx):
            a = j * (nx + 1) + i
            b, c, d = a + 1, a + nx + 1, a + nx + 2
            F.extend((a, b, d, a, d, c))
    return V, F


class _Lcg:
    """A 64-bit linear congruential generator: the same numbers on every platform and Python."""

    def __init__(self, seed):
        self.state = (seed * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)

    def uniform(self, lo, hi):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
        return lo + (hi - lo) * ((self.state >> 11) / float(2**53))


def random_mesh(n_faces, seed=0, size=None):
    """``n_faces`` independent random triangles (3 vertices each) scattered over the screen.

    Each triangle has a random centre in NDC [-1.1, 1.1]^2 (some cross the border), a radius
    around ``size`` (default: such that the triangles together cover the screen about twice),
    random depth ``z`` in [-0.9, 0.9] per vertex, and ``w`` in [0.5, 2] per vertex, so the
    perspective correction matters. Returns ``(V, F)`` as flat float32 / int32 ``array.array``.
    """
    rng = _Lcg(seed)
    if size is None:
        size = min(1.0, 2.0 / math.sqrt(max(n_faces, 1)))
    V = array.array("f")
    F = array.array("i")
    for f in range(n_faces):
        cx, cy = rng.uniform(-1.1, 1.1), rng.uniform(-1.1, 1.1)
        r = size * rng.uniform(0.5, 1.5)
        phase = rng.uniform(0.0, 2.0 * math.pi)
        for k in range(3):
            ang = phase + k * 2.0 * math.pi / 3.0 + rng.uniform(-0.5, 0.5)
            x = cx + r * math.cos(ang)
            y = cy + r * math.sin(ang)
            z = rng.uniform(-0.9, 0.9)
            w = rng.uniform(0.5, 2.0)
            V.extend((x * w, y * w, z * w, w))
        F.extend((3 * f, 3 * f + 1, 3 * f + 2))
    return V, F
