#include "pipeline/enums.h"

#include <vector>

#include "sensors/synthetic_camera.h"

namespace {

/// Registers a GEnum from a core nick table; `skip` leaves values out (gabor output=complex has
/// no video representation). The GEnumValue array must live for the process: it is leaked once.
template <class E, std::size_t N>
GType registerEnum(const char* name, const striate::EnumName<E> (&table)[N], const char* const* descriptions,
                   int skip = -1) {
    auto* values = new GEnumValue[N + 1];
    std::size_t n = 0;
    for (std::size_t i = 0; i < N; ++i) {
        if (static_cast<int>(table[i].value) == skip) continue;
        values[n++] = {static_cast<gint>(table[i].value), descriptions[i], table[i].nick};
    }
    values[n] = {0, nullptr, nullptr};
    return g_enum_register_static(name, values);
}

template <class F>
GType once(GType* cache, F make) {
    static_assert(sizeof(GType) <= sizeof(gsize));
    if (g_once_init_enter(reinterpret_cast<gsize*>(cache))) g_once_init_leave(reinterpret_cast<gsize*>(cache), make());
    return *cache;
}

} // namespace

GType gst_striate_backend_get_type() {
    static GType type = 0;
    static const char* d[] = {"Best available for the board", "Reference (scalar double, slow)",
                              "CPU (NEON, threads)", "OpenGL ES 3.1 compute", "OpenGL ES 2.0/3.0 fragment"};
    return once(&type, [] { return registerEnum("GstStriateBackend", striate::kBackendKinds, d); });
}

GType gst_striate_blur_method_get_type() {
    static GType type = 0;
    static const char* d[] = {"Direct below sigma 3, recursive above (8-bit output on cpu: direct below 10)",
                              "Direct (sampled taps)",
                              "Repeated extended boxes (constant time)", "Recursive (Young-van Vliet, constant time)"};
    return once(&type, [] { return registerEnum("GstStriateBlurMethod", striate::kBlurMethods, d); });
}

GType gst_striate_gabor_method_get_type() {
    static GType type = 0;
    static const char* d[] = {"Direct below sigma 3, recursive above", "Recursive (Young, van Vliet, van Ginkel)",
                              "Direct (sampled complex kernel)"};
    return once(&type, [] { return registerEnum("GstStriateGaborMethod", striate::kGaborMethods, d); });
}

GType gst_striate_gabor_output_get_type() {
    static GType type = 0;
    static const char* d[] = {"Magnitude", "Real part (zero is mid-grey)", "Imaginary part (zero is mid-grey)",
                              "Phase (-pi..pi over the output range)", "Complex"};
    return once(&type, [] {
        return registerEnum("GstStriateGaborOutput", striate::kGaborOutputs, d,
                            static_cast<int>(striate::GaborOutput::Complex));
    });
}

GType gst_striate_edge_method_get_type() {
    static GType type = 0;
    static const char* d[] = {"Canny (Gaussian, gradient, NMS, hysteresis)", "Gabor energy bank"};
    return once(&type, [] { return registerEnum("GstStriateEdgeMethod", striate::kEdgeMethods, d); });
}

GType gst_striate_edge_output_get_type() {
    static GType type = 0;
    static const char* d[] = {"Edge map (0 or full scale)", "Edge strength (high threshold at mid-grey)",
                              "Edges drawn over the input luma"};
    return once(&type, [] { return registerEnum("GstStriateEdgeOutput", striate::kEdgeOutputs, d); });
}

GType gst_striate_scene_get_type() {
    static GType type = 0;
    static const char* d[] = {"Moving disk, rectangle and bar on a ramp", "Drifting sinusoidal grating",
                              "Rotating Siemens star", "Scrolling text",
                              "A real photo (location), panning and zooming slowly"};
    return once(&type, [] { return registerEnum("GstStriateScene", striate::sensors::kScenes, d); });
}
