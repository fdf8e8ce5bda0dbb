#!/usr/bin/env python3
"""check_gsplat_gpu.py: gsplat's own CUDA operations from an installed gsplat wheel, on the GPU,
against gsplat's pure-torch reference (gsplat/cuda/_torch_impl.py), on a few hundred random
Gaussians seen by two cameras: projection (fully_fused_projection vs _fully_fused_projection),
tile intersection (isect_tiles vs _isect_tiles), rasterization forward (rasterize_to_pixels vs
_rasterize_to_pixels) and backward (gradients of means2d, conics, colors, opacities and
backgrounds, and through the projection of means, quats and scales). Tolerances are those of
gsplat's tests/test_basic.py. Saves every CUDA output to OUT.pt, so that the outputs of two
wheels (cuwheel's and `pip wheel`'s) can be compared with `--compare A.pt B.pt`.

    python check_gsplat_gpu.py dump OUT.pt        exit 0: all match the reference
    python check_gsplat_gpu.py compare A.pt B.pt  prints max |A - B| per tensor; exit 0 when
                                                  every tensor is within the reference
                                                  tolerances of the other
Exit 2 when no GPU can be used."""
import math
import sys

import torch

N, C, W, H, CH, TILE = 400, 2, 320, 240, 3, 16
FAILS = []


def close(name, got, want, rtol, atol):
    try:
        torch.testing.assert_close(got, want, rtol=rtol, atol=atol)
        print(f"ok   {name}: max |cuda - torch| = {(got.float() - want.float()).abs().max():.3g}")
    except AssertionError as e:
        FAILS.append(name)
        print(f"FAIL {name}: {str(e).splitlines()[0:3]}")


def scene(device):
    g = torch.Generator(device="cpu").manual_seed(0)
    means = torch.randn(N, 3, generator=g) * torch.tensor([1.5, 1.0, 0.5]) + torch.tensor(
        [0.0, 0.0, 4.0])
    quats = torch.nn.functional.normalize(torch.randn(N, 4, generator=g), dim=-1)
    scales = torch.rand(N, 3, generator=g) * 0.08 + 0.01
    opacities = torch.rand(N, generator=g) * 0.8 + 0.1
    colors = torch.rand(C, N, CH, generator=g)
    backgrounds = torch.rand(C, CH, generator=g)
    viewmats = torch.eye(4).repeat(C, 1, 1)
    viewmats[1, 0, 3] = 0.3  # the second camera moved sideways
    Ks = torch.tensor([[300.0, 0, W / 2], [0, 300.0, H / 2], [0, 0, 1]]).repeat(C, 1, 1)
    return {k: v.to(device) for k, v in dict(means=means, quats=quats, scales=scales,
                                              opacities=opacities, colors=colors,
                                              backgrounds=backgrounds, viewmats=viewmats,
                                              Ks=Ks).items()}


def dump(out):
    from gsplat.cuda._torch_impl import (_fully_fused_projection, _isect_tiles,
                                         _rasterize_to_pixels)
    from gsplat.cuda._wrapper import (fully_fused_projection, isect_offset_encode, isect_tiles,
                                      quat_scale_to_covar_preci, rasterize_to_pixels)
    import gsplat
    print(f"gsplat {gsplat.__version__} from {gsplat.__file__}; torch {torch.__version__}; "
          f"{torch.cuda.get_device_name(0)}")
    d = scene("cuda")
    saved = {}
    for k in ("means", "quats", "scales"):
        d[k].requires_grad = True

    # Projection, through quats/scales (fused) and through the reference's covariances.
    radii, means2d, depths, conics, _ = fully_fused_projection(
        d["means"], None, d["quats"], d["scales"], d["viewmats"], d["Ks"], W, H)
    covars, _ = quat_scale_to_covar_preci(d["quats"], d["scales"], triu=False)
    _radii, _means2d, _depths, _conics, _ = _fully_fused_projection(
        d["means"], covars, d["viewmats"], d["Ks"], W, H)
    valid = (radii > 0).all(dim=-1) & (_radii > 0).all(dim=-1)
    print(f"     {int(valid.sum())} of {C * N} (camera, Gaussian) pairs visible")
    close("projection radii", radii, _radii, 0, 1)
    close("projection means2d", means2d[valid], _means2d[valid], 1e-4, 1e-4)
    close("projection depths", depths[valid], _depths[valid], 1e-4, 1e-4)
    close("projection conics", conics[valid], _conics[valid], 1e-4, 1e-4)
    g = torch.Generator(device="cuda").manual_seed(1)
    v_m2 = torch.randn(means2d.shape, device="cuda", generator=g) * valid[..., None]
    v_dp = torch.randn(depths.shape, device="cuda", generator=g) * valid
    v_co = torch.randn(conics.shape, device="cuda", generator=g) * valid[..., None]
    grads = torch.autograd.grad((means2d * v_m2).sum() + (depths * v_dp).sum() +
                                (conics * v_co).sum(), (d["means"], d["quats"], d["scales"]))
    _grads = torch.autograd.grad((_means2d * v_m2).sum() + (_depths * v_dp).sum() +
                                 (_conics * v_co).sum(), (d["means"], d["quats"], d["scales"]))
    for name, a, b in zip(("means", "quats", "scales"), grads, _grads):
        close(f"projection backward d/d{name}", a, b, 1e-1, 1e-1)
        saved[f"proj_grad_{name}"] = a
    saved.update(radii=radii, means2d=means2d, depths=depths, conics=conics)

    # Tile intersection.
    tw, th = math.ceil(W / TILE), math.ceil(H / TILE)
    means2d, conics = means2d.detach(), conics.detach()
    tiles_per_gauss, isect_ids, flatten_ids = isect_tiles(means2d, radii, depths.detach(), TILE,
                                                         tw, th)
    _tiles_per_gauss, _isect_ids, _flatten_ids = _isect_tiles(means2d, radii, depths.detach(),
                                                              TILE, tw, th)
    close("isect tiles_per_gauss", tiles_per_gauss, _tiles_per_gauss, 0, 0)
    close("isect ids", isect_ids, _isect_ids, 0, 0)
    close("isect flatten_ids", flatten_ids, _flatten_ids, 0, 0)
    print(f"     {isect_ids.numel()} tile intersections")
    offsets = isect_offset_encode(isect_ids, C, tw, th)
    saved.update(isect_ids=isect_ids, flatten_ids=flatten_ids, offsets=offsets)

    # Rasterization forward and backward.
    opac = d["opacities"].expand(C, N).contiguous()
    leaves = [means2d, conics, d["colors"], opac, d["backgrounds"]]
    for t in leaves:
        t.requires_grad = True
    args = (means2d, conics, d["colors"], opac, W, H, TILE, offsets, flatten_ids)
    img, alpha = rasterize_to_pixels(*args, backgrounds=d["backgrounds"])
    _img, _alpha = _rasterize_to_pixels(*args, backgrounds=d["backgrounds"])
    close("rasterize colors", img, _img, 1.3e-6, 1e-5)
    close("rasterize alphas", alpha, _alpha, 1.3e-6, 1e-5)
    print(f"     image mean {img.mean():.4f}, alpha mean {alpha.mean():.4f}")
    g = torch.Generator(device="cuda").manual_seed(2)
    v_img = torch.randn(img.shape, device="cuda", generator=g)
    v_alpha = torch.randn(alpha.shape, device="cuda", generator=g)
    loss = (img * v_img).sum() + (alpha * v_alpha).sum()
    grads = torch.autograd.grad(loss, leaves, retain_graph=True)
    again = torch.autograd.grad(loss, leaves)
    for name, a, b in zip(("means2d", "conics", "colors", "opacities", "backgrounds"), grads,
                          again):
        # The backward kernel accumulates with atomicAdd: its order, hence the last bits,
        # may change from one run to the next.
        print(f"     rasterize backward d/d{name}, run twice: " +
              ("bit-identical" if torch.equal(a, b) else
               f"differs by up to {(a - b).abs().max():.3g} (atomicAdd order)"))
    _grads = torch.autograd.grad((_img * v_img).sum() + (_alpha * v_alpha).sum(), leaves)
    tol = {"means2d": (5e-3, 5e-3), "conics": (1e-3, 1e-3), "colors": (1e-3, 1e-3),
           "opacities": (8e-3, 6e-3), "backgrounds": (1e-3, 1e-3)}
    for (name, (rt, at)), a, b in zip(tol.items(), grads, _grads):
        close(f"rasterize backward d/d{name}", a, b, rt, at)
        saved[f"raster_grad_{name}"] = a
    saved.update(image=img, alpha=alpha)
    torch.save({k: v.detach().cpu() for k, v in saved.items()}, out)
    print(f"{len(saved)} CUDA outputs saved to {out}")


def compare(a_path, b_path):
    a, b = torch.load(a_path), torch.load(b_path)
    identical = 0
    for k in sorted(set(a) | set(b)):
        if k not in a or k not in b:
            FAILS.append(k)
            print(f"FAIL {k}: only in one")
            continue
        x, y = a[k], b[k]
        if x.shape != y.shape:
            FAILS.append(k)
            print(f"FAIL {k}: shapes {tuple(x.shape)} vs {tuple(y.shape)}")
            continue
        same = torch.equal(x, y)
        identical += same
        diff = (x.double() - y.double()).abs().max().item() if x.numel() else 0.0
        # The wheels run the same kernels: identical bits are expected; within the
        # reference tolerances is what gsplat's tests accept.
        ok = same or torch.allclose(x.double(), y.double(), rtol=1e-3, atol=1e-3)
        if not ok:
            FAILS.append(k)
        print(f"{'ok  ' if ok else 'FAIL'} {k}: {'bit-identical' if same else f'max |a-b| = {diff:.3g}'}")
    print(f"{identical} of {len(a)} tensors bit-identical between {a_path} and {b_path}")


def main(argv):
    if len(argv) >= 3 and argv[1] == "dump":
        if not torch.cuda.is_available():
            print("no usable GPU")
            return 2
        dump(argv[2])
    elif len(argv) == 4 and argv[1] == "compare":
        compare(argv[2], argv[3])
    else:
        print(__doc__)
        return 2
    if FAILS:
        print(f"{len(FAILS)} checks failed: {', '.join(FAILS)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
