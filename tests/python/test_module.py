"""striate.probe(), striate.selftest(), the fallback warning, the module's attributes (python/)."""
import json
import os
import subprocess

import numpy as np
import pytest

import striate
from conftest import CROSS, python_command, run_tool


def test_attributes():
    assert striate.__version__.count(".") == 2
    assert striate.stages == ["blur", "gabor", "edges", "threshold"]
    assert all(striate.examples[s] for s in striate.stages)
    assert "auto" in striate.backends and "yuv420" in striate.layouts
    assert striate.DEFAULT_MAX_PIXELS == 8192 * 8192


def test_probe_is_the_cli_json():
    p = striate.probe()
    _, out, _ = run_tool("probe", "--json")
    cli = json.loads(out)
    assert set(p) == set(cli)
    assert p["probe"]["gles"] == cli["probe"]["gles"] and p["auto"] == cli["auto"]
    m = striate.probe(chain="edges", size=(640, 480))["memory"]
    assert m["width"] == 640 and m["chain"].startswith("edges method=canny")
    assert m["backends"]["cpu"]["host_bytes"] > 0
    with pytest.raises(ValueError, match="rpi9"):
        striate.probe(board="rpi9")
    with pytest.raises(ValueError, match="frame size 0x5 is empty"):
        striate.probe(chain="edges", size=(0, 5))


def test_selftest_rows(tmp_path, monkeypatch):
    """The on-device test from Python: its rows, every one passing here, with the photo and goldens
    found beside the module (share/striate) when no data= is given; a wrong backend or data folder
    is a ValueError. (One run of the battery: under qemu each takes a good 12 s.)"""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    rows = striate.selftest(backends=["cpu"], measure=False)
    assert len(rows) > 20
    assert {r["backend"] for r in rows} == {"cpu", "reference"}  # the reference: its golden checks
    failed = [r for r in rows if not r["pass"]]
    assert not failed, failed[:3]
    assert {"chain", "size", "error", "budget", "ms"} <= set(rows[0])
    with pytest.raises(ValueError, match="unknown backend 'reference'"):
        striate.selftest(backends=["reference"])
    with pytest.raises(ValueError, match="none"):
        striate.selftest(backends=["cpu"], measure=False, data=str(tmp_path / "none"))


@pytest.mark.skipif(CROSS, reason="under qemu the no-EGL case is the native build's")
def test_gpu_backend_without_egl_warns_and_runs_on_the_cpu():
    """A GPU backend that cannot start: one RuntimeWarning naming why, and the cpu runs the frame."""
    code = ("import warnings, numpy as np, striate\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    f = striate.Filter('edges', backend='gles-compute')\n"
            "    f(np.zeros((16, 16), dtype=np.uint8)); f(np.zeros((16, 16), dtype=np.uint8))\n"
            "print(f.active_backend, len(w), w[0].category.__name__, w[0].message)\n")
    env = dict(os.environ, __EGL_VENDOR_LIBRARY_FILENAMES="/nonexistent/egl_vendor.json")
    p = subprocess.run(python_command() + ["-c", code], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("cpu 1 RuntimeWarning "), p.stdout
    assert "using the cpu backend" in p.stdout


def test_read_luma_is_the_cli_reader(tmp_path, data_dir):
    photo = striate.read_luma(os.path.join(data_dir, "astronaut.png"))
    run_tool("filter", os.path.join(data_dir, "astronaut.png"), str(tmp_path / "o.png"), "--chain", "blur sigma=1",
             "--backend", "cpu")
    np.testing.assert_array_equal(striate.read_luma(str(tmp_path / "o.png")),
                                  striate.Filter("blur sigma=1", backend="cpu")(photo))
