"""The examples run (examples/): the GStreamer one on striatesrc; the picamera2 one where picamera2 is."""
import os
import subprocess
import sys

import numpy as np
import pytest

import striate
from conftest import CROSS, python_command

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")


@pytest.mark.skipif(CROSS, reason="the examples run natively (PyGObject is not in the sysroot)")
def test_gst_contact_sheet(tmp_path):
    try:
        import gi

        gi.require_version("Gst", "1.0")
        gi.require_version("GstVideo", "1.0")
    except (ImportError, ValueError) as e:
        pytest.skip(f"PyGObject or GStreamer's introspection data is missing: {e}")
    if not os.environ.get("GST_PLUGIN_PATH"):
        pytest.skip("GST_PLUGIN_PATH does not name the build's plugin (run through ctest)")
    out = tmp_path / "sheet.png"
    # 201x121: GRAY8 rows padded to 204 bytes, which the example hands over as strided views.
    p = subprocess.run([sys.executable, os.path.join(EXAMPLES, "gst_contact_sheet.py"), str(out), "--frames", "8",
                        "--rows", "2", "--size", "201x121", "--backend", "cpu"], capture_output=True, text=True,
                       env=dict(os.environ, GST_REGISTRY=str(tmp_path / "registry.bin")))
    assert p.returncode == 0, p.stderr
    assert "contact sheet: " in p.stdout and "edges method=canny" in p.stdout and ": cpu, " in p.stdout, p.stdout
    sheet = striate.read_luma(str(out))
    assert sheet.shape == (2 * 121 + 4, 3 * 201 + 8)
    frame, edges = sheet[:121, :201], sheet[:121, 205:406]
    assert frame.std() > 20  # the photo, not a blank
    assert set(np.unique(edges)) <= {0, 255} and 0.01 < (edges == 255).mean() < 0.3  # an edge map
    np.testing.assert_array_equal(edges, striate.Filter("edges", backend="cpu")(frame))


def test_picamera2_edges(tmp_path):
    p = subprocess.run(python_command() + [os.path.join(EXAMPLES, "picamera2_edges.py"), str(tmp_path / "e.png"),
                        "--frames", "10"], capture_output=True, text=True)
    try:
        import picamera2  # noqa: F401
    except ImportError:
        assert p.returncode == 2 and "picamera2 is not installed" in p.stderr, p.stderr
        pytest.skip("picamera2 is not installed (not in Debian; Raspberry Pi OS has it): checked that the example says so")
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "e.png").stat().st_size > 0
