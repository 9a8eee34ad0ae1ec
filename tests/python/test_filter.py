"""striate.Filter against the CLI, every input layout and dtype, views and out= (python/)."""
import numpy as np
import pytest

import striate
from conftest import CROSS, bt601, read_pgm, run_tool, write_pgm, write_ppm

# Every example chain of every stage on the cpu and the reference; on the GPU backends the first
# example of each stage (the one a quick check runs): each shader a chain needs costs a compile.
# Under qemu the GPU backends run on Mesa's software renderers, minutes a chain on armhf: the cpu
# and reference there (tests/CMakeLists.txt, docs/boards.md).
GPU = [] if CROSS else ["gles-compute", "gles-fragment"]
CASES = [(chain, b) for stage in striate.stages for chain in striate.examples[stage] for b in ("cpu",)]
CASES += [(striate.examples[stage][0], b) for stage in striate.stages for b in ["reference"] + GPU]


@pytest.mark.parametrize("chain,backend", CASES)
def test_stage_matches_cli(tmp_path, small, chain, backend):
    """The same codes and floats as `striate filter` on the same image and backend."""
    write_pgm(tmp_path / "in.pgm", small)
    run_tool("filter", str(tmp_path / "in.pgm"), str(tmp_path / "out.pgm"), "--chain", chain, "--backend", backend,
             "--raw", str(tmp_path / "out.npy"))
    with _no_warning():
        f = striate.Filter(chain, backend=backend)
        codes = f(small)
        raw = f(small, raw=True)
    assert f.active_backend == backend
    assert codes.dtype == np.uint8 and codes.shape == small.shape
    np.testing.assert_array_equal(codes, read_pgm(tmp_path / "out.pgm"))
    cli_raw = np.load(tmp_path / "out.npy")
    assert raw.dtype == np.float32 and raw.shape == cli_raw.shape
    np.testing.assert_array_equal(raw, cli_raw)
    if f.chain.startswith("gabor") and "output=complex" in f.chain:
        assert raw.shape == small.shape + (2,)


class _no_warning:
    """No RuntimeWarning (a GPU backend falling back to the cpu) while the block runs."""

    def __enter__(self):
        import warnings

        self._catch = warnings.catch_warnings()
        self._catch.__enter__()
        warnings.simplefilter("error", RuntimeWarning)

    def __exit__(self, *exc):
        self._catch.__exit__(*exc)


def test_chain_is_canonical():
    f = striate.Filter("blur sigma=2")
    assert f.chain == "blur sigma=2 method=auto"
    assert f.backend == "auto" and f.active_backend is None
    assert "none yet" in f.explain()
    assert repr(f) == "striate.Filter('blur sigma=2 method=auto', backend='auto')"


@pytest.mark.parametrize("layout,order", [("rgb", (0, 1, 2)), ("bgr", (2, 1, 0)), ("rgba", (0, 1, 2)), ("bgra", (2, 1, 0))])
def test_colour_layouts(tmp_path, colour, layout, order):
    """Colour frames read as BT.601 luma, channel order by layout=, as the CLI reads a PPM."""
    rgb = colour[..., :3]
    frame = np.ascontiguousarray(colour[..., list(order) + ([3] if len(layout) == 4 else [])])
    f = striate.Filter("edges", backend="cpu")
    out = f(frame, layout=layout)
    assert not f.input_in_place
    np.testing.assert_array_equal(out, f(bt601(rgb[..., 0], rgb[..., 1], rgb[..., 2])))
    write_ppm(tmp_path / "in.ppm", rgb)
    run_tool("filter", str(tmp_path / "in.ppm"), str(tmp_path / "out.pgm"), "--chain", "edges", "--backend", "cpu")
    np.testing.assert_array_equal(out, read_pgm(tmp_path / "out.pgm"))


def test_uint16_luma(small):
    """uint16 luma rounds to 8 bits as round(v / 257), as the CLI reads 16-bit images."""
    rng = np.random.default_rng(3)
    wide = (small.astype(np.int64) * 257 + rng.integers(-128, 129, small.shape)).clip(0, 65535).astype(np.uint16)
    f = striate.Filter("blur sigma=1.5", backend="cpu")
    out = f(wide)
    assert not f.input_in_place
    np.testing.assert_array_equal(out, f(((wide.astype(np.int64) + 128) // 257).astype(np.uint8)))


def test_yuv420_reads_its_luma(small):
    """picamera2's planar YUV420 (height x 3/2 rows): its first rows are the luma, read in place."""
    h, w = 60, 96
    yuv = np.full((h * 3 // 2, w), 77, dtype=np.uint8)
    yuv[:h] = small[:h, :w]
    f = striate.Filter("gabor", backend="cpu")
    out = f(yuv, layout="yuv420")
    assert out.shape == (h, w) and f.input_in_place
    np.testing.assert_array_equal(out, f(np.ascontiguousarray(small[:h, :w])))


def test_views_in_place_and_converted(photo):
    """A crop or row stride is read in place; other views are converted; all give the same output."""
    f = striate.Filter("edges", backend="cpu")
    crop = photo[20:120, 30:200]
    expected = f(np.ascontiguousarray(crop))
    assert f(crop) is not None and f.input_in_place
    np.testing.assert_array_equal(f(crop), expected)
    for view in (crop[::-1][::-1], np.asfortranarray(crop)):
        np.testing.assert_array_equal(f(view), expected)
    colour = np.repeat(crop[..., None], 3, axis=2)
    np.testing.assert_array_equal(f(colour[..., 1]), expected)  # a channel: samples 3 bytes apart
    assert not f.input_in_place
    np.testing.assert_array_equal(f(photo[::2, ::2]), f(np.ascontiguousarray(photo[::2, ::2])))
    flipped = np.ascontiguousarray(crop[::-1])
    np.testing.assert_array_equal(f(crop[::-1]), f(flipped))


def test_out_arrays(small):
    """out= is written and returned: contiguous, a view into a larger array, float32 for raw."""
    f = striate.Filter("blur sigma=2", backend="cpu")
    expected = f(small)
    out = np.zeros_like(small)
    assert f(small, out=out) is out
    np.testing.assert_array_equal(out, expected)
    canvas = np.zeros((small.shape[0] + 4, small.shape[1] * 2), dtype=np.uint8)
    view = canvas[2:-2, ::2]
    f(small, out=view)
    np.testing.assert_array_equal(view, expected)
    assert not canvas[2:-2, 1::2].any() and not canvas[:2].any()
    raw = np.empty(small.shape, dtype=np.float32)
    assert f(small, out=raw, raw=True) is raw
    np.testing.assert_array_equal(raw, f(small, raw=True))
    g = striate.Filter("gabor output=complex", backend="cpu")
    z = np.empty(small.shape + (2,), dtype=np.float32)
    g(small, out=z, raw=True)
    mag = g(small)  # the 8-bit image of a complex output is its magnitude
    assert mag.dtype == np.uint8 and z.shape == small.shape + (2,)
    np.testing.assert_array_equal(z, g(small, raw=True))


def test_reconfigures_on_size_change(photo):
    f = striate.Filter("edges", backend="cpu")
    a = f(photo[:50, :60])
    before = f.memory()["host_bytes"]
    b = f(photo[:100, :120])
    assert a.shape == (50, 60) and b.shape == (100, 120)
    assert f.memory()["host_bytes"] > before > 0
    np.testing.assert_array_equal(f(photo[:50, :60]), a)


@pytest.mark.parametrize("backend", GPU)
def test_gpu_backends_read_and_write_views(photo, backend):
    """A crop is uploaded where it lies (its row stride), and a strided out= is written in place."""
    f = striate.Filter("blur sigma=2 ! edges", backend=backend)
    crop = photo[13:113, 7:190]
    expected = f(np.ascontiguousarray(crop))
    np.testing.assert_array_equal(f(crop), expected)
    assert f.input_in_place and f.active_backend == backend
    canvas = np.zeros((100, 400), dtype=np.uint8)
    f(crop, out=canvas[:, :366:2])
    np.testing.assert_array_equal(canvas[:, :366:2], expected)
    assert not canvas[:, 1:366:2].any()


@pytest.mark.skipif(CROSS, reason="the GPU backends under qemu run on Mesa's software renderers: the cpu and reference there")
def test_gpu_backend_from_another_thread(small):
    """A GPU backend's context is current only while a frame runs: a Filter moves between threads."""
    import threading

    f = striate.Filter("blur sigma=2", backend="gles-compute")
    first = f(small)
    results = []
    t = threading.Thread(target=lambda: results.append(f(small)))
    t.start()
    t.join()
    assert f.active_backend == "gles-compute"
    np.testing.assert_array_equal(results[0], first)
