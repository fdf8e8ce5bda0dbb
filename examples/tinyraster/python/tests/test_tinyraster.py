"""Tests of the installed tinyraster package: the C reference against results worked out by hand,
input validation, and the GPU entry points (equal to the reference with a GPU, the documented
error without one). numpy is optional: the cases that need it skip when it is missing."""

import array
import math
import threading

import pytest

import tinyraster as tr

try:
    import numpy as np
except ImportError:  # the package itself does not need numpy
    np = None

needs_numpy = pytest.mark.skipif(np is None, reason="numpy is not installed")
HAVE_GPU = tr.cuda_available()


def f32(values):
    return array.array("f", values)


def i32(values):
    return array.array("i", values)


def tri_5x5(w1=1.0, z=0.0):
    """One triangle whose screen corners are the centres of pixels (0,0), (4,0) and (0,4) of a
    5x5 image: twice its area is -16, so every barycentric below is exact in float32."""
    V = f32([-1, -1, z, 1, 1 * w1, -1 * w1, z * w1, w1, -1, 1, z, 1])
    return V, i32([0, 1, 2])


def full_quad(z, first_face=0):
    """Two triangles covering the whole image at depth z (indices offset by first_face*2)."""
    return [-1.2, -1.2, z, 1, 1.2, -1.2, z, 1, 1.2, 1.2, z, 1, -1.2, 1.2, z, 1]


# ---- rasterisation by the C reference, checked against hand-computed values ----


def test_single_triangle_covers_exactly_the_pixels_with_px_plus_py_at_most_4():
    V, F = tri_5x5()
    ids, bary = tr.rasterize_cpu(V, F, 5, 5)
    ids, bary = ids.tolist(), bary.tolist()
    for py in range(5):
        for px in range(5):
            if px + py <= 4:  # centres on the hypotenuse count as inside
                assert ids[py][px] == 1, (px, py)
                want = [1 - (px + py) / 4, px / 4, py / 4]
                assert bary[py][px] == pytest.approx(want, abs=1e-7), (px, py)
            else:
                assert ids[py][px] == 0, (px, py)
                assert bary[py][px] == [0.0, 0.0, 0.0]


def test_results_are_shaped_memoryviews_with_int32_and_float32_formats():
    V, F = tri_5x5()
    ids, bary = tr.rasterize_cpu(V, F, 5, 3)
    assert isinstance(ids, memoryview) and isinstance(bary, memoryview)
    assert (ids.format, ids.itemsize, ids.shape) == ("i", 4, (3, 5))
    assert (bary.format, bary.itemsize, bary.shape) == ("f", 4, (3, 5, 3))


def test_perspective_correct_barycentrics_divide_by_w():
    # Vertex 1 has w = 2 with x, y, z scaled by 2: same screen position, so at pixel (1, 1) the
    # screen barycentrics are (1/2, 1/4, 1/4); dividing by w and renormalising gives 4/7, 1/7, 2/7.
    V, F = tri_5x5(w1=2.0)
    ids, bary = tr.rasterize_cpu(V, F, 5, 5)
    assert ids.tolist()[1][1] == 1
    assert bary.tolist()[1][1] == pytest.approx([4 / 7, 1 / 7, 2 / 7], abs=1e-6)


def test_nearer_face_wins_whatever_the_order():
    # Faces 0-1 at z = 0.5 (far), faces 2-3 at z = -0.5 (near).
    V = f32(full_quad(0.5) + full_quad(-0.5))
    far, near = [0, 1, 2, 0, 2, 3], [4, 5, 6, 4, 6, 7]
    ids = tr.rasterize_cpu(V, i32(far + near), 4, 4)[0].tolist()
    assert {v for row in ids for v in row} <= {3, 4}  # ids of the near faces, index + 1
    ids = tr.rasterize_cpu(V, i32(near + far), 4, 4)[0].tolist()
    assert {v for row in ids for v in row} <= {1, 2}


def test_equal_depths_break_ties_toward_the_lowest_face_index():
    V = f32(full_quad(0.25))
    F = i32([0, 1, 2, 0, 2, 3] * 2)  # the same two faces twice: 0 = 2 and 1 = 3
    ids = tr.rasterize_cpu(V, F, 4, 4)[0].tolist()
    assert {v for row in ids for v in row} <= {1, 2}
    assert ids[0][3] == 1 and ids[3][0] == 2  # below and above the shared diagonal


def test_fragments_in_front_of_the_near_plane_are_dropped():
    # z/w = -1.2 gives depth -0.1 < 0.
    V, F = tri_5x5(z=-1.2)
    ids = tr.rasterize_cpu(V, F, 5, 5)[0].tolist()
    assert all(v == 0 for row in ids for v in row)


def test_faces_with_a_vertex_behind_the_camera_are_culled():
    V = f32([-1, -1, 0, 1, 1, -1, 0, 1, -1, 1, 0, -1])  # w = -1
    ids = tr.rasterize_cpu(V, i32([0, 1, 2]), 5, 5)[0].tolist()
    assert all(v == 0 for row in ids for v in row)


def test_depth_prior_rejects_fragments_not_behind_it():
    V, F = tri_5x5(z=0.0)  # depth 0.5 everywhere
    # D = 0: threshold 0.5 + 1e-6 > 0.5, so every fragment is rejected.
    ids = tr.rasterize_cpu(V, F, 5, 5, D=f32([0.0] * 25), use_depth_prior=True)[0].tolist()
    assert all(v == 0 for row in ids for v in row)
    # D = -0.5 on the first row only: the fragments there lie behind it and are kept.
    D = f32([-0.5] * 5 + [0.0] * 20)
    ids = tr.rasterize_cpu(V, F, 5, 5, D=D, use_depth_prior=True)[0].tolist()
    assert ids[0] == [1, 1, 1, 1, 1]
    assert all(v == 0 for row in ids[1:] for v in row)
    # occlusion_truncation widens the gap needed: the row-0 threshold becomes 0.500005 > 0.5.
    ids = tr.rasterize_cpu(
        V, F, 5, 5, D=D, occlusion_truncation=0.25, use_depth_prior=True
    )[0].tolist()
    assert all(v == 0 for row in ids for v in row)


def test_depth_prior_is_ignored_without_use_depth_prior():
    V, F = tri_5x5()
    ids = tr.rasterize_cpu(V, F, 5, 5, D=f32([5.0] * 25))[0].tolist()
    assert ids[0][0] == 1


def test_depth_peeling_finds_the_second_layer():
    V = f32(full_quad(-0.5) + full_quad(0.5))
    F = i32([0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7])
    ids = tr.rasterize_cpu(V, F, 4, 4)[0].tolist()
    assert {v for row in ids for v in row} == {1, 2}
    D = f32([-0.5] * 16)  # the first layer's z / w
    ids = tr.rasterize_cpu(V, F, 4, 4, D=D, use_depth_prior=True)[0].tolist()
    assert {v for row in ids for v in row} == {3, 4}


def test_grid_mesh_covers_every_pixel_once():
    V, F = tr.grid_mesh(3, 2, extent=1.01)
    ids, bary = tr.rasterize_cpu(V, F, 7, 5)
    flat = [v for row in ids.tolist() for v in row]
    assert all(1 <= v <= 12 for v in flat)
    for row in bary.tolist():
        for b in row:
            assert sum(b) == pytest.approx(1.0, abs=1e-6)
            assert min(b) >= 0.0


# ---- interpolation ----


def test_interpolating_ndc_x_gives_the_pixel_centre_position():
    V, F = tr.grid_mesh(4, 4, extent=1.01)
    W, H = 9, 6
    xs = f32([V[4 * i] for i in range(len(V) // 4)])  # per-vertex NDC x: 1 channel, flat
    ids, bary = tr.rasterize_cpu(V, F, W, H)
    out = tr.interpolate_cpu(xs, ids, bary, F)
    assert (out.format, out.shape) == ("f", (H, W, 1))
    rows = out.tolist()
    for py in range(H):
        for px in range(W):
            # Pixel centre px + 0.5 maps back to NDC x = 2 * px / (W - 1) - 1.
            assert rows[py][px][0] == pytest.approx(2 * px / (W - 1) - 1, abs=1e-5)


def test_interpolation_is_zero_on_background_and_blends_channels():
    V, F = tri_5x5()
    attr = memoryview(f32([1, 10, 2, 20, 3, 30])).cast("B").cast("f", (3, 2))
    ids, bary = tr.rasterize_cpu(V, F, 5, 5)
    out = tr.interpolate_cpu(attr, ids, bary, F).tolist()
    assert out[4][4] == [0.0, 0.0]
    # pixel (2, 1): barycentrics (1/4, 1/2, 1/4)
    assert out[1][2] == pytest.approx([2.0, 20.0], abs=1e-6)


@needs_numpy
def test_float16_interpolation_returns_float16():
    V, F = tri_5x5()
    ids, bary = tr.rasterize_cpu(V, F, 5, 5)
    attr = np.array([[1.0], [2.0], [3.0]], dtype=np.float16)
    out = np.asarray(tr.interpolate_cpu(attr, ids, bary, F))
    assert out.dtype == np.float16 and out.shape == (5, 5, 1)
    assert out[1, 2, 0] == np.float16(2.0)
    assert out[0, 1, 0] == np.float16(1.25)  # (3/4, 1/4, 0) . (1, 2, 3)
    ref = np.asarray(tr.interpolate_cpu(attr.astype(np.float32), ids, bary, F))
    assert np.array_equal(out, ref.astype(np.float16))


# ---- numpy interoperability ----


@needs_numpy
def test_numpy_in_numpy_out():
    V, F = tr.random_mesh(50, seed=3)
    Vn = np.frombuffer(V, dtype=np.float32).reshape(-1, 4)
    Fn = np.frombuffer(F, dtype=np.int32).reshape(-1, 3)
    ids, bary = tr.rasterize_cpu(Vn, Fn, 32, 24)
    ids, bary = np.asarray(ids), np.asarray(bary)
    assert ids.dtype == np.int32 and ids.shape == (24, 32)
    assert bary.dtype == np.float32 and bary.shape == (24, 32, 3)
    ids2, bary2 = tr.rasterize_cpu(V, F, 32, 24)  # flat array.array inputs: same result
    assert np.array_equal(ids, np.asarray(ids2)) and np.array_equal(bary, np.asarray(bary2))
    out = np.asarray(tr.interpolate_cpu(Vn, ids, bary, Fn))
    assert out.shape == (24, 32, 4)


@needs_numpy
def test_non_contiguous_numpy_input_is_rejected_with_a_hint():
    V = np.zeros((4, 3), dtype=np.float32)
    with pytest.raises(ValueError, match="V: must be C-contiguous"):
        tr.rasterize_cpu(V.T, np.zeros((1, 3), np.int32), 4, 4)


@needs_numpy
def test_float64_numpy_input_is_rejected_naming_the_format():
    with pytest.raises(TypeError, match=r"V: expected float32 \(format 'f'\) elements, got format 'd'"):
        tr.rasterize_cpu(np.zeros((3, 4)), np.zeros((1, 3), np.int32), 4, 4)


# ---- input validation (no numpy) ----


def test_wrong_element_type_is_a_type_error():
    V, F = tri_5x5()
    with pytest.raises(TypeError, match="V: expected float32"):
        tr.rasterize_cpu(array.array("d", V), F, 5, 5)
    with pytest.raises(TypeError, match="F: expected int32"):
        tr.rasterize_cpu(V, array.array("f", F), 5, 5)


def test_non_buffer_is_a_type_error():
    with pytest.raises(TypeError, match="V: expected an object with the buffer protocol"):
        tr.rasterize_cpu([[0, 0, 0, 1]], i32([0, 0, 0]), 4, 4)


def test_wrong_shapes_are_value_errors():
    V, F = tri_5x5()
    with pytest.raises(ValueError, match=r"V: expected shape \[N, 4\], got \[6\]"):
        tr.rasterize_cpu(f32([0] * 6), F, 5, 5)
    with pytest.raises(ValueError, match=r"F: expected shape \[M, 3\], got \[2, 2\]"):
        tr.rasterize_cpu(V, memoryview(i32([0, 1, 2, 0])).cast("B").cast("i", (2, 2)), 5, 5)
    with pytest.raises(ValueError, match=r"D: expected shape \[5, 4\]"):
        tr.rasterize_cpu(V, F, 4, 5, D=f32([0] * 19), use_depth_prior=True)


def test_out_of_range_vertex_index_is_named():
    V, F = tri_5x5()
    with pytest.raises(ValueError, match=r"F\[0\]\[2\] = 7 is out of range: there are 3 vertices"):
        tr.rasterize_cpu(V, i32([0, 1, 7]), 5, 5)
    with pytest.raises(ValueError, match="out of range"):
        tr.rasterize_cpu(V, i32([0, -1, 2]), 5, 5)


def test_bad_image_size_and_missing_prior():
    V, F = tri_5x5()
    with pytest.raises(ValueError, match="width and height must be positive"):
        tr.rasterize_cpu(V, F, 0, 5)
    with pytest.raises(ValueError, match="use_depth_prior=True needs a depth prior D"):
        tr.rasterize_cpu(V, F, 5, 5, use_depth_prior=True)


def test_non_contiguous_memoryview_is_rejected():
    V = memoryview(f32([0.0] * 24))[::2]
    with pytest.raises(ValueError, match="V: must be C-contiguous"):
        tr.rasterize_cpu(V, i32([0, 1, 2]), 4, 4)


def test_bytearray_is_raw_native_storage():
    V, F = tri_5x5()
    ids, _ = tr.rasterize_cpu(bytearray(V.tobytes()), bytearray(F.tobytes()), 5, 5)
    assert ids.tolist()[0][0] == 1
    with pytest.raises(ValueError, match="V: 7 bytes is not a whole number"):
        tr.rasterize_cpu(bytearray(7), F, 5, 5)


def test_interpolate_validates_face_ids_and_shapes():
    V, F = tri_5x5()
    ids, bary = tr.rasterize_cpu(V, F, 5, 5)
    attr = f32([1, 2, 3])
    bad = memoryview(bytearray(ids.tobytes())).cast("i", (5, 5))
    bad[2, 3] = 9
    with pytest.raises(ValueError, match=r"face_ids\[2\]\[3\] = 9 is out of range"):
        tr.interpolate_cpu(attr, bad, bary, F)
    with pytest.raises(ValueError, match=r"bary: expected shape \[5, 5, 3\]"):
        tr.interpolate_cpu(attr, ids, f32([0] * 75), F)
    with pytest.raises(ValueError, match=r"F\[0\]\[2\] = 2 is out of range: there are 2"):
        tr.interpolate_cpu(f32([1, 2]), ids, bary, F)
    with pytest.raises(TypeError, match="attr: expected float32 or float16"):
        tr.interpolate_cpu(i32([1, 2, 3]), ids, bary, F)


def test_rasterize_releases_the_gil_and_is_thread_safe():
    V, F = tr.random_mesh(200, seed=5)
    want = tr.rasterize_cpu(V, F, 64, 64)[0].tobytes()
    got = []
    threads = [
        threading.Thread(target=lambda: got.append(tr.rasterize_cpu(V, F, 64, 64)[0].tobytes()))
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [want] * 4


def test_version_is_a_string():
    assert isinstance(tr.__version__, str) and tr.__version__


# ---- the GPU entry points ----


@pytest.mark.skipif(HAVE_GPU, reason="a CUDA device is present")
def test_without_a_gpu_the_gpu_functions_say_why():
    assert tr.device_count() == 0
    V, F = tri_5x5()
    with pytest.raises(RuntimeError, match="^no CUDA device is available: .+"):
        tr.rasterize(V, F, 5, 5)
    ids, bary = tr.rasterize_cpu(V, F, 5, 5)
    with pytest.raises(RuntimeError, match="^no CUDA device is available: .+"):
        tr.interpolate(f32([1, 2, 3]), ids, bary, F)
    with pytest.raises(RuntimeError, match="^no CUDA device is available"):
        tr.device_info()


def test_gpu_input_errors_are_value_errors_before_any_cuda_call():
    V, F = tri_5x5()
    with pytest.raises(ValueError, match="out of range"):
        tr.rasterize(V, i32([0, 1, 7]), 5, 5)


def _gpu_cases():
    return [
        (tri_5x5()[0], tri_5x5()[1], 5, 5),
        tr.grid_mesh(7, 5) + (33, 17),
        tr.random_mesh(1, seed=1) + (64, 48),
        tr.random_mesh(300, seed=2) + (96, 80),
        tr.random_mesh(3000, seed=3, size=0.3) + (128, 128),
    ]


@pytest.mark.skipif(not HAVE_GPU, reason="no CUDA device")
@pytest.mark.parametrize("case", range(5))
def test_gpu_equals_the_c_reference(case):
    V, F, W, H = _gpu_cases()[case]
    ids_c, bary_c = tr.rasterize_cpu(V, F, W, H)
    ids_g, bary_g = tr.rasterize(V, F, W, H)
    assert ids_g.tobytes() == ids_c.tobytes()
    for rg, rc in zip(bary_g.tolist(), bary_c.tolist()):
        for bg, bc in zip(rg, rc):
            assert max(abs(a - b) for a, b in zip(bg, bc)) <= 1e-5
    attr = f32([math.sin(i) for i in range(len(V))])  # 4 channels per vertex
    attr = memoryview(attr).cast("B").cast("f", (len(V) // 4, 4))
    assert tr.interpolate(attr, ids_c, bary_c, F).tobytes() == tr.interpolate_cpu(
        attr, ids_c, bary_c, F
    ).tobytes()


@pytest.mark.skipif(not HAVE_GPU, reason="no CUDA device")
def test_gpu_depth_prior_equals_the_c_reference():
    V, F = tr.random_mesh(500, seed=9)
    D = f32([0.1 * math.sin(i) for i in range(64 * 64)])
    a = tr.rasterize(V, F, 64, 64, D=D, occlusion_truncation=0.01, use_depth_prior=True)
    b = tr.rasterize_cpu(V, F, 64, 64, D=D, occlusion_truncation=0.01, use_depth_prior=True)
    assert a[0].tobytes() == b[0].tobytes()


@pytest.mark.skipif(not HAVE_GPU or np is None, reason="no CUDA device or no numpy")
def test_gpu_float16_interpolation_equals_the_c_reference():
    V, F = tr.random_mesh(300, seed=4)
    ids, bary = tr.rasterize_cpu(V, F, 64, 64)
    attr = np.frombuffer(V, dtype=np.float32).reshape(-1, 4).astype(np.float16)
    g = np.asarray(tr.interpolate(attr, ids, bary, F))
    c = np.asarray(tr.interpolate_cpu(attr, ids, bary, F))
    assert g.dtype == np.float16 and g.tobytes() == c.tobytes()


@pytest.mark.skipif(not HAVE_GPU, reason="no CUDA device")
def test_device_info_describes_device_0():
    info = tr.device_info(0)
    assert info["name"] and info["compute_capability"][0] >= 7
    assert tr.device_count() >= 1
