"""Fixtures of the Python module's tests (tests/CMakeLists.txt runs them with pytest).

The environment names what the build made: PYTHONPATH the module's folder, STRIATE_TOOL the
`striate` tool (the CLI the outputs are compared with), STRIATE_DATA the photo and goldens, and in
a cross build STRIATE_EMULATOR (qemu and its sysroot), which runs the tool the same way.
"""
import os
import shlex
import subprocess
import sys

import numpy as np
import pytest

import striate

CROSS = bool(os.environ.get("STRIATE_EMULATOR"))


def tool_command():
    tool = os.environ.get("STRIATE_TOOL")
    if not tool:
        pytest.skip("STRIATE_TOOL is not set (run through ctest, which names the build's striate)")
    return shlex.split(os.environ.get("STRIATE_EMULATOR", "")) + [tool]


def python_command():
    """This interpreter as a command (in a cross build: under the emulator, as the tests run)."""
    return shlex.split(os.environ.get("STRIATE_EMULATOR", "")) + [sys.executable]


def run_tool(*args, check=True):
    """Runs the striate tool; returns (exit status, stdout, stderr)."""
    p = subprocess.run(tool_command() + list(args), capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"striate {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
    return p.returncode, p.stdout, p.stderr


def write_pgm(path, image):
    h, w = image.shape
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (w, h) + np.ascontiguousarray(image, dtype=np.uint8).tobytes())


def write_ppm(path, rgb):
    h, w, _ = rgb.shape
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (w, h) + np.ascontiguousarray(rgb, dtype=np.uint8).tobytes())


def read_pgm(path):
    with open(path, "rb") as f:
        data = f.read()
    fields = data.split(maxsplit=4)
    assert fields[0] == b"P5" and fields[3] == b"255", fields[:4]
    w, h = int(fields[1]), int(fields[2])
    return np.frombuffer(fields[4][: w * h], dtype=np.uint8).reshape(h, w)


@pytest.fixture(scope="session")
def data_dir():
    d = os.environ.get("STRIATE_DATA")
    if not d:
        pytest.skip("STRIATE_DATA is not set (run through ctest)")
    return d


@pytest.fixture(scope="session")
def photo(data_dir):
    """The real photo (tests/data/astronaut.png) as the tool reads it: 8-bit luma."""
    return striate.read_luma(os.path.join(data_dir, "astronaut.png"))


@pytest.fixture(scope="session")
def small(photo):
    """A 97x61 crop with detail (odd sizes: no backend gets a round size)."""
    return np.ascontiguousarray(photo[40:101, 70:167])


@pytest.fixture(scope="session")
def colour():
    """A deterministic colour frame: smooth ramps with noise, 73x45x4 (RGBA order)."""
    rng = np.random.default_rng(7)
    y, x = np.mgrid[0:45, 0:73]
    base = np.stack([x * 3, y * 5, (x + y) * 2, np.full_like(x, 255)], axis=-1)
    return np.clip(base + rng.integers(-20, 21, base.shape), 0, 255).astype(np.uint8)


def bt601(r, g, b):
    """core/image.h lumaOf, in numpy."""
    r, g, b = (np.asarray(c, dtype=np.int64) for c in (r, g, b))
    return ((19595 * r + 38470 * g + 7471 * b + 32768) >> 16).astype(np.uint8)
