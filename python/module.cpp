// The `striate` Python module (docs/design.md, Layout; docs/python.md): Filter, probe(), selftest(),
// and the tool's image files. numpy arrays in and out; the GIL is released while frames run.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "core/params.h"
#include "io/image_io.h"
#include "python/filter.h"
#include "python/frames.h"
#ifdef STRIATE_HAVE_GLES
#include "board/probe_report.h"
#include "tools/selftest/selftest.h"
#endif

namespace py = pybind11;
using namespace striate;
using striate::python::ArrayDesc;
using striate::python::Destination;
using striate::python::FrameSource;
using striate::python::Layout;

namespace {

[[noreturn]] void raiseValue(const Status& s) { throw py::value_error(s.message()); }

/// A numpy array's description; a non-array, or an element type other than uint8 and uint16
/// (`what` allows), is a TypeError naming it.
ArrayDesc describe(const py::handle& object, const char* what, bool allow16) {
    if (!py::isinstance<py::array>(object))
        throw py::type_error(std::string(what) + " must be a numpy array, not " + std::string(py::str(object.get_type().attr("__name__"))));
    const auto a = py::reinterpret_borrow<py::array>(object);
    ArrayDesc d;
    if (py::isinstance<py::array_t<std::uint8_t>>(a)) d.itemsize = 1;
    else if (allow16 && py::isinstance<py::array_t<std::uint16_t>>(a)) d.itemsize = 2;
    else
        throw py::type_error(std::string(what) + " must be " + (allow16 ? "uint8 or uint16" : "uint8") + ", not " +
                             std::string(py::str(a.dtype())));
    d.data = static_cast<const std::uint8_t*>(a.data());
    d.ndim = static_cast<int>(a.ndim());
    if (d.ndim > 3) throw py::value_error(std::string(what) + " has " + std::to_string(d.ndim) + " dimensions (2 or 3 expected)");
    for (int i = 0; i < d.ndim; ++i) {
        d.shape[i] = a.shape(i);
        d.strides[i] = a.strides(i);
    }
    return d;
}

/// The output array of a frame: `out` checked (its dtype, shape, writable, not the frame), or a
/// new one. Float outputs are float32; the complex ones (H, W, 2).
py::array destination(const py::object& out, const FrameSource& frame, bool raw, bool complex, Destination* to) {
    std::vector<py::ssize_t> shape{frame.height, frame.width};
    if (raw && complex) shape.push_back(2);
    const py::dtype dtype = raw ? py::dtype::of<float>() : py::dtype::of<std::uint8_t>();
    py::array array;
    if (out.is_none()) {
        array = py::array(dtype, shape);
    } else {
        if (!py::isinstance<py::array>(out)) throw py::type_error("out must be a numpy array");
        array = py::reinterpret_borrow<py::array>(out);
        const std::string want = std::string(raw ? "float32" : "uint8") + " array of shape (" + std::to_string(frame.height) +
                                 ", " + std::to_string(frame.width) + (shape.size() == 3 ? ", 2)" : ")");
        bool same = array.ndim() == static_cast<py::ssize_t>(shape.size());
        for (std::size_t i = 0; same && i < shape.size(); ++i) same = array.shape(i) == shape[i];
        if (!(raw ? py::isinstance<py::array_t<float>>(array) : py::isinstance<py::array_t<std::uint8_t>>(array)))
            throw py::type_error("out must be a " + want + ", not " + std::string(py::str(array.dtype())));
        if (!same) throw py::value_error("out must be a " + want + ", not shape " + std::string(py::str(array.attr("shape"))));
        if (!array.writeable()) throw py::value_error("out is read-only");
    }
    to->raw = raw;
    to->array.data = static_cast<const std::uint8_t*>(array.data());
    to->array.itemsize = static_cast<int>(array.itemsize());
    to->array.ndim = static_cast<int>(array.ndim());
    for (int i = 0; i < to->array.ndim; ++i) {
        to->array.shape[i] = array.shape(i);
        to->array.strides[i] = array.strides(i);
    }
    if (python::overlaps(to->array, frame.array)) throw py::value_error("out shares memory with the frame; give another array");
    return array;
}

/// The Filter claimed for one frame, released however the call ends; a Filter another thread is
/// running is a RuntimeError that says so.
class Claim {
public:
    explicit Claim(python::Filter& f) : f_(f) {
        if (!f_.claim())
            throw std::runtime_error("this striate.Filter is filtering a frame on another thread: a Filter runs one "
                                     "frame at a time (make one Filter per thread)");
    }
    ~Claim() { f_.release(); }
    Claim(const Claim&) = delete;
    Claim& operator=(const Claim&) = delete;

private:
    python::Filter& f_;
};

/// Filter.__call__: one frame in, its output out, the GIL released while it runs.
py::array filterFrame(python::Filter& f, const py::object& frame, const py::object& out, const std::string& layoutName,
                      bool raw) {
    Layout layout = Layout::Gray;
    if (Status s = python::layoutOf(layoutName, &layout); !s) raiseValue(s);
    FrameSource source;
    if (Status s = python::understand(describe(frame, "the frame", true), layout, f.maxPixels(), &source); !s) raiseValue(s);
    Destination to;
    py::array result = destination(out, source, raw, f.chain().complexOutput(), &to);
    std::vector<std::string> warnings;
    Status s;
    {
        const Claim claim(f);
        py::gil_scoped_release nogil;
        s = f.run(source, to, &warnings);
    }
    for (const std::string& w : warnings) PyErr_WarnEx(PyExc_RuntimeWarning, w.c_str(), 1);
    if (!s) raiseValue(s);
    return result;
}

/// Filter._native_seconds: the C++ side of a call alone, for the benchmark's per-call overhead
/// (bench/python_bench.py): the frame run `repeats` times into one output, seconds per frame.
double nativeSeconds(python::Filter& f, const py::object& frame, int repeats) {
    FrameSource source;
    if (Status s = python::understand(describe(frame, "the frame", true), Layout::Gray, f.maxPixels(), &source); !s) raiseValue(s);
    Destination to;
    py::array result = destination(py::none(), source, false, f.chain().complexOutput(), &to);
    std::vector<std::string> warnings;
    Status s;
    std::chrono::duration<double> seconds{};
    {
        const Claim claim(f);
        py::gil_scoped_release nogil;
        s = f.run(source, to, &warnings);  // configured before the clock starts
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; s && i < repeats; ++i) s = f.run(source, to, &warnings);
        seconds = std::chrono::steady_clock::now() - start;
    }
    if (!s) raiseValue(s);
    return seconds.count() / std::max(repeats, 1);
}

/// The folder of the photo and goldens: share/striate above the module (installed:
/// /usr/lib/python3/dist-packages -> /usr/share/striate; a build tree: build/python -> build/share).
std::string dataDir() {
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(&dataDir), &info) || !info.dli_fname) return {};
    std::filesystem::path dir = std::filesystem::absolute(info.dli_fname).parent_path();
    for (int up = 0; up < 3 && dir.has_parent_path(); ++up, dir = dir.parent_path())
        if (std::filesystem::exists(dir.parent_path() / "share" / "striate" / "goldens"))
            return (dir.parent_path() / "share" / "striate").string();
    return (std::filesystem::path(info.dli_fname).parent_path() / "../../../share/striate").lexically_normal().string();
}

py::object parseJson(const std::string& text) { return py::module_::import("json").attr("loads")(text); }

#ifdef STRIATE_HAVE_GLES
py::object probe(const std::string& board, const std::optional<std::string>& chainText, std::pair<int, int> size) {
    Chain chain;
    if (chainText)
        if (Status s = parseChain(*chainText, &chain); !s) raiseValue(s);
    const FrameFormat format{size.first, size.second};
    if (Status s = validateFrameFormat(format); !s) raiseValue(s);
    ProbeReport report;
    Status s;
    {
        py::gil_scoped_release nogil;
        s = probeReport(board, chainText ? &chain : nullptr, format, &report);
    }
    if (!s) raiseValue(s);
    return parseJson(report.json);
}

py::object selftestRun(const std::string& board, const std::vector<std::string>& backends, bool full,
                       const std::optional<std::string>& data, bool measure) {
    selftest::Options o;
    o.board = board == "auto" ? "" : board;
    for (const std::string& name : backends) {
        const auto kind = fromNick(kBackendKinds, name);
        if (!kind || *kind == BackendKind::Auto || *kind == BackendKind::Reference)
            throw py::value_error("unknown backend '" + name + "' (expected cpu, gles-compute or gles-fragment)");
        o.backends.push_back(*kind);
    }
    o.full = full;
    o.dataDir = data ? *data : dataDir();
    o.measure = measure;
    selftest::Report report;
    Status s;
    {
        py::gil_scoped_release nogil;
        s = selftest::run(o, &report);
    }
    if (!s) raiseValue(s);
    return parseJson(selftest::formatJson(report))["rows"];
}
#endif

} // namespace

PYBIND11_MODULE(striate, m) {
    m.doc() = "Striate: vision filters (Gaussian blur, recursive Gabor, edges, adaptive threshold) on the "
              "cpu (NEON, threads) and on the GPU through OpenGL ES, numpy arrays in and out.";
    m.attr("__version__") = STRIATE_VERSION;
    py::list stages;
    py::dict examples;
    for (const StageInfo& info : stageInfos()) {
        stages.append(info.name);
        examples[info.name] = py::cast(std::vector<std::string>(info.examples.begin(), info.examples.end()));
    }
    m.attr("stages") = stages;
    m.attr("examples") = examples;  // every stage's example chains: each method and output
    py::list backends;
    for (const auto& e : kBackendKinds) backends.append(e.nick);
    m.attr("backends") = py::tuple(backends);
    m.attr("layouts") = py::tuple(py::cast(python::layoutNames()));
    m.attr("DEFAULT_MAX_PIXELS") = io::kDefaultMaxPixels;

    py::class_<python::Filter>(m, "Filter", R"(A chain of stages on one backend.

Filter(chain, backend="auto", board="auto", threads=None, max_pixels=DEFAULT_MAX_PIXELS)

chain: the same string as `striate filter --chain` and the elements' stages, e.g.
"blur sigma=2 ! edges"; checked at once. backend: auto, cpu, reference, gles-compute or
gles-fragment (a GPU backend that cannot run warns once, RuntimeWarning, and the cpu runs).
board: a board profile (auto, rpi0..rpi5, tight, host). threads: the cpu backend's threads
(default one per hardware thread). A bad chain, backend or board raises ValueError with the
command line's message. The backend is configured on the first frame and again only when the
frame's size changes. One Filter runs one frame at a time: a call while another thread's call
runs raises RuntimeError.)")
        .def(py::init([](const std::string& chain, const std::string& backend, const std::string& board,
                         const std::optional<int>& threads, std::int64_t maxPixels) {
                 if (threads && (*threads < 1 || *threads > 256))
                     throw py::value_error("threads=" + std::to_string(*threads) + " is not an integer in 1..256");
                 std::unique_ptr<python::Filter> f;
                 if (Status s = python::Filter::make(chain, backend, board, threads.value_or(0), maxPixels, &f); !s)
                     raiseValue(s);
                 return f;
             }),
             py::arg("chain"), py::arg("backend") = "auto", py::arg("board") = "auto", py::arg("threads") = py::none(),
             py::arg("max_pixels") = io::kDefaultMaxPixels)
        .def("__call__", &filterFrame, py::arg("frame"), py::arg("out") = py::none(), py::arg("layout") = "gray",
             py::arg("raw") = false, R"(Filters one frame; returns `out` or a new array.

frame: 2-D uint8 or uint16 luma (uint16 rounded to 8 bits); with layout="yuv420" picamera2's
planar YUV420 array (height x 3/2 rows), read as its luma; with layout="rgb", "bgr", "rgba" or
"bgra" a 3-D uint8 colour frame (OpenCV's arrays are bgr, picamera2's XRGB8888 is bgra), read as
BT.601 luma. Views (a crop, a row stride) are read in place. Output: uint8 (the elements' codes)
by default; raw=True: float32 in docs/algorithms.md units, (H, W, 2) for a complex output. A wrong
dtype is a TypeError; a wrong shape or size (beyond 32768 a side or max_pixels) a ValueError.)")
        .def_property_readonly("chain", [](const python::Filter& f) { return formatChain(f.chain()); },
                               "The chain, every parameter spelled out.")
        .def_property_readonly("backend", &python::Filter::requestedBackend, "The backend asked for.")
        .def_property_readonly("active_backend", &python::Filter::activeBackend,
                               "The backend that ran the last frame (None before the first).")
        .def_property_readonly("max_pixels", &python::Filter::maxPixels)
        .def_property_readonly("input_in_place", &python::Filter::inputInPlace,
                               "True when the backend read the last frame where it lies (uint8 luma rows, "
                               "a crop or row stride included); False when it was converted first.")
        .def("explain", &python::Filter::explain,
             "The chain and the kernels or GPU passes that run it (with each program's compiler statistics "
             "where the driver reports them), as `striate filter --explain` prints.")
        .def("memory", [](const python::Filter& f) {
                 const MemoryUse use = f.memory();
                 py::dict d;
                 d["gpu_bytes"] = use.gpu;
                 d["host_bytes"] = use.host;
                 return d;
             }, "What the configured backend holds for its frames, in bytes (zero before the first frame).")
        .def("_native_seconds", &nativeSeconds, py::arg("frame"), py::arg("repeats"),
             "(benchmark) Seconds per frame of the C++ call alone: 2-D uint8 frames, 8-bit output.")
        .def("__repr__", [](const python::Filter& f) {
            return "striate.Filter(" + std::string(py::repr(py::str(formatChain(f.chain())))) + ", backend='" +
                   f.requestedBackend() + "')";
        });

#ifdef STRIATE_HAVE_GLES
    m.def("probe", &probe, py::arg("board") = "auto", py::arg("chain") = py::none(),
          py::arg("size") = std::pair<int, int>{1920, 1080},
          R"(What this machine offers, as `striate probe --json`: the GLES context and its limits, the board
profile, the backend auto picks; with chain=, each backend's memory for it at size=(width, height).)");
    m.def("selftest", &selftestRun, py::arg("board") = "auto", py::arg("backends") = std::vector<std::string>{},
          py::arg("full") = false, py::arg("data") = py::none(), py::arg("measure") = true,
          R"(Runs `striate selftest`'s battery on the backends (default: cpu, gles-compute, gles-fragment)
and returns its rows as dicts (the "rows" of `striate selftest --json`); a failing row has
"pass": False. measure=True stores the timings for backend="auto" as the command does.)");
#endif
    m.def("read_luma", [](const std::string& path, std::int64_t maxPixels) {
              Image<std::uint8_t> luma;
              Status s;
              {
                  py::gil_scoped_release nogil;
                  s = io::readLuma(path, &luma, maxPixels);
              }
              if (!s) raiseValue(s);
              py::array_t<std::uint8_t> a(std::vector<py::ssize_t>{luma.height(), luma.width()});
              for (int y = 0; y < luma.height(); ++y) std::memcpy(a.mutable_data(y, 0), luma.row(y), luma.width());
              return a;
          },
          py::arg("path"), py::arg("max_pixels") = io::kDefaultMaxPixels,
          "Reads PNG, JPEG, PGM or PPM as 8-bit luma, as `striate filter` reads its input.");
    m.def("write_gray", [](const std::string& path, const py::object& image) {
              const ArrayDesc d = describe(image, "the image", false);
              if (d.ndim != 2 || d.shape[0] < 1 || d.shape[1] < 1)
                  throw py::value_error("the image must be a non-empty 2-D uint8 array");
              if (Status s = io::checkOutput(path, true); !s) raiseValue(s);
              Image<std::uint8_t> plane(static_cast<int>(d.shape[1]), static_cast<int>(d.shape[0]));
              for (int y = 0; y < plane.height(); ++y)
                  for (int x = 0; x < plane.width(); ++x) plane.at(x, y) = d.data[y * d.strides[0] + x * d.strides[1]];
              if (Status s = io::writeGray(path, plane.view()); !s) raiseValue(s);
          },
          py::arg("path"), py::arg("image"), "Writes a 2-D uint8 array as 8-bit grey PNG or PGM (by the name's extension).");
}
