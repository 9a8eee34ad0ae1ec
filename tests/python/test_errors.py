"""Bad input raises a clear exception that names the problem (python/)."""
import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import striate
from conftest import run_tool


def cli_error(*args):
    """The one line `striate filter` prints for a usage error, without its prefix."""
    status, _, err = run_tool("filter", "in.pgm", "out.pgm", *args, check=False)
    assert status == 2, err
    assert err.startswith("striate: error: "), err
    return err[len("striate: error: "):].strip()


@pytest.mark.parametrize("chain", ["blur sigma=0", "blur sigma=nan", "blurr", "gabor wavelength=1 ! blur",
                                   "edges low-threshold=0.5 high-threshold=0.1", ""])
def test_bad_chain_is_the_cli_message(chain):
    with pytest.raises(ValueError) as e:
        striate.Filter(chain)
    assert str(e.value) == cli_error("--chain", chain)


def test_bad_backend_and_board_are_the_cli_messages():
    with pytest.raises(ValueError) as e:
        striate.Filter("edges", backend="vulkan")
    assert str(e.value) == cli_error("--chain", "edges", "--backend", "vulkan")
    with pytest.raises(ValueError) as e:
        striate.Filter("edges", board="rpi9")
    _, _, err = run_tool("probe", "--board", "rpi9", check=False)
    assert str(e.value) == err.strip()[len("striate: error: "):]
    assert "rpi9" in str(e.value)


def test_bad_threads():
    for threads in (0, -1, 257):
        with pytest.raises(ValueError, match=f"threads={threads} is not an integer in 1..256"):
            striate.Filter("edges", threads=threads)
    with pytest.raises(TypeError):
        striate.Filter("edges", threads="two")


@pytest.mark.parametrize("frame,kind,words", [
    (np.zeros((8, 8), dtype=np.float64), TypeError, "uint8 or uint16, not float64"),
    (np.zeros((8, 8), dtype=np.int8), TypeError, "not int8"),
    ([[1, 2], [3, 4]], TypeError, "must be a numpy array, not list"),
    (np.zeros(10, dtype=np.uint8), ValueError, "shape (10,)"),
    (np.zeros((0, 5), dtype=np.uint8), ValueError, "the frame is 5x0, outside 1..32768"),
    (np.zeros((2, 2, 2, 2), dtype=np.uint8), ValueError, "4 dimensions"),
    (np.zeros((8, 8, 3), dtype=np.uint8), ValueError, "colour frames need layout="),
    (as_strided(np.zeros(1, dtype=np.uint8), shape=(2, 40000), strides=(0, 0)), ValueError,
     "the frame is 40000x2, outside 1..32768 pixels per side"),
])
def test_bad_frames(frame, kind, words):
    f = striate.Filter("blur", backend="cpu")
    with pytest.raises(kind) as e:
        f(frame)
    assert words in str(e.value)


def test_max_pixels_rule():
    """Sizes beyond max_pixels (striate filter --max-pixels' default: 8192 x 8192) are refused."""
    huge = as_strided(np.zeros(1, dtype=np.uint8), shape=(9000, 9000), strides=(0, 0))
    with pytest.raises(ValueError, match=r"9000x9000 = 81000000 pixels, beyond the limit of 67108864 \(max_pixels\)"):
        striate.Filter("blur", backend="cpu")(huge)
    small = striate.Filter("blur", backend="cpu", max_pixels=100)
    with pytest.raises(ValueError, match="beyond the limit of 100"):
        small(np.zeros((11, 10), dtype=np.uint8))
    assert small(np.zeros((10, 10), dtype=np.uint8)).shape == (10, 10)
    with pytest.raises(ValueError, match="max_pixels=0"):
        striate.Filter("blur", max_pixels=0)


@pytest.mark.parametrize("layout,shape,words", [
    ("rgb", (8, 8, 4), "a rgb frame is a 3-D array (height, width, 3); this one has shape (8, 8, 4)"),
    ("bgra", (8, 8, 3), "(height, width, 4); this one has shape (8, 8, 3)"),
    ("bgr", (8, 8), "this one has shape (8, 8)"),
    ("yuv420", (13, 8), "a yuv420 frame has height x 3/2 rows"),
    ("yuv", (8, 8), "unknown layout 'yuv' (expected gray, yuv420, rgb, bgr, rgba or bgra)"),
])
def test_bad_layouts(layout, shape, words):
    with pytest.raises(ValueError) as e:
        striate.Filter("blur", backend="cpu")(np.zeros(shape, dtype=np.uint8), layout=layout)
    assert words in str(e.value)
    with pytest.raises(ValueError, match="colour frames are uint8"):
        striate.Filter("blur", backend="cpu")(np.zeros((4, 4, 3), dtype=np.uint16), layout="rgb")


def test_bad_out():
    f = striate.Filter("blur", backend="cpu")
    frame = np.zeros((6, 7), dtype=np.uint8)
    with pytest.raises(ValueError, match=r"out must be a uint8 array of shape \(6, 7\), not shape \(7, 6\)"):
        f(frame, out=np.zeros((7, 6), dtype=np.uint8))
    with pytest.raises(TypeError, match=r"out must be a float32 array of shape \(6, 7\), not float64"):
        f(frame, out=np.zeros((6, 7)), raw=True)
    ro = np.zeros((6, 7), dtype=np.uint8)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="out is read-only"):
        f(frame, out=ro)
    with pytest.raises(ValueError, match="out shares memory with the frame"):
        f(frame, out=frame)
    with pytest.raises(TypeError, match="out must be a numpy array"):
        f(frame, out=[0])


def test_read_and_write_errors(tmp_path):
    with pytest.raises(ValueError, match="nonexistent"):
        striate.read_luma(str(tmp_path / "nonexistent.png"))
    with pytest.raises(ValueError, match="no folder"):
        striate.write_gray(str(tmp_path / "no" / "x.png"), np.zeros((2, 2), dtype=np.uint8))
    with pytest.raises(ValueError, match="non-empty 2-D uint8"):
        striate.write_gray(str(tmp_path / "x.png"), np.zeros((2, 2, 2), dtype=np.uint8))
    image = (np.arange(35, dtype=np.uint8) * 7).reshape(5, 7)
    striate.write_gray(str(tmp_path / "x.png"), image[:, ::-1])
    np.testing.assert_array_equal(striate.read_luma(str(tmp_path / "x.png")), image[:, ::-1])
