// The striate plugin's elements through GstHarness: formats in and out, odd sizes and strides,
// property validation, backend fallback, property changes while playing (striatesrc and long
// runs: test_src.cpp).
#include <gst/app/gstappsink.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#ifdef STRIATE_HAVE_GLES
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <dlfcn.h>
#include <link.h>
#endif

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <unistd.h>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/chain.h"
#include "core/params.h"
#include "cpu/neon/cpu_backend.h"
#include "tests/pipeline/element_support.h"

namespace striate {
namespace {

using test::infoOf;
using test::patternFrame;
using test::requirePlugin;

/// The luma the elements must read: plane 0 of grey and planar YUV, every second byte of packed
/// 4:2:2 (from the first or the second), 16-bit grey rounded to round(v / 257), BT.601 of RGB.
Image<std::uint8_t> lumaOfFrame(const GstVideoInfo& info, GstBuffer* buf) {
    GstVideoFrame frame;
    gst_video_frame_map(&frame, const_cast<GstVideoInfo*>(&info), buf, GST_MAP_READ);
    const int W = GST_VIDEO_FRAME_WIDTH(&frame), H = GST_VIDEO_FRAME_HEIGHT(&frame);
    Image<std::uint8_t> luma(W, H);
    auto* d = static_cast<const guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0));
    const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0);
    const GstVideoFormat f = GST_VIDEO_FRAME_FORMAT(&frame);
    const bool rgb = GST_VIDEO_FORMAT_INFO_IS_RGB(frame.info.finfo);
    const bool bgr = f == GST_VIDEO_FORMAT_BGRA || f == GST_VIDEO_FORMAT_BGRx;
    const bool packed = f == GST_VIDEO_FORMAT_YUY2 || f == GST_VIDEO_FORMAT_YVYU || f == GST_VIDEO_FORMAT_UYVY;
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            const guint8* row = d + y * stride;
            if (f == GST_VIDEO_FORMAT_GRAY16_LE) {
                const int v = row[2 * x] | row[2 * x + 1] << 8;
                luma.at(x, y) = static_cast<std::uint8_t>(std::lround(v / 257.0));
            } else if (packed) {
                luma.at(x, y) = row[2 * x + (f == GST_VIDEO_FORMAT_UYVY)];
            } else {
                const guint8* p = row + (rgb ? 4 * x : x);
                luma.at(x, y) = !rgb ? p[0] : bgr ? lumaOf(p[2], p[1], p[0]) : lumaOf(p[0], p[1], p[2]);
            }
        }
    gst_video_frame_unmap(&frame);
    return luma;
}

/// What an element must output for a chain: the cpu backend on the luma, its 8-bit codes
/// (process8) or its float output through the 16-bit encoding.
std::vector<int> expected(const std::string& chainText, const Image<std::uint8_t>& luma, bool sixteen) {
    Chain chain;
    EXPECT_TRUE(parseChain(chainText, &chain)) << chainText;
    cpu::CpuBackend backend;
    const int W = luma.width(), H = luma.height();
    EXPECT_TRUE(backend.configure(chain, FrameFormat{W, H}));
    std::vector<int> v;
    if (!sixteen) {
        Image<std::uint8_t> codes(W, H);
        EXPECT_TRUE(backend.process8(luma.view(), Output8{codes.data(), codes.stride(), 1, chain.encoding()}));
        for (int y = 0; y < H; ++y) v.insert(v.end(), codes.row(y), codes.row(y) + W);
        return v;
    }
    ChainOutput out;
    EXPECT_TRUE(backend.process(luma.view(), &out));
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) v.push_back(encode16(out.real.at(x, y), chain.encoding()));
    return v;
}

std::vector<int> greyPixels(GstBuffer* buf, const GstVideoInfo& info) {
    GstVideoFrame frame;
    gst_video_frame_map(&frame, const_cast<GstVideoInfo*>(&info), buf, GST_MAP_READ);
    std::vector<int> v;
    const bool sixteen = GST_VIDEO_FRAME_FORMAT(&frame) == GST_VIDEO_FORMAT_GRAY16_LE;
    auto* d = static_cast<const guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0));
    const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0);
    for (int y = 0; y < GST_VIDEO_FRAME_HEIGHT(&frame); ++y)
        for (int x = 0; x < GST_VIDEO_FRAME_WIDTH(&frame); ++x)
            v.push_back(sixteen ? GUINT16_FROM_LE(reinterpret_cast<const guint16*>(d + y * stride)[x]) : d[y * stride + x]);
    gst_video_frame_unmap(&frame);
    return v;
}

struct FormatCase {
    const char* element;  // a gst-launch description of the element
    const char* chain;    // the same stage in chain syntax
    const char* in;
    const char* out;
};

class ElementFormats : public ::testing::TestWithParam<FormatCase> {};

TEST_P(ElementFormats, OutputEqualsCpuBackendOnTheLuma) {
    requirePlugin();
    const FormatCase& c = GetParam();
    // 37x23: odd sizes, so GStreamer pads every stride (and I420/NV12 chroma is rounded up).
    const std::string inCaps = std::string("video/x-raw,format=") + c.in + ",width=37,height=23,framerate=30/1";
    // Forced cpu, so the output equals the cpu backend's to the bit (GLES: GpuBackend below).
    GstHarness* h = gst_harness_new_parse((std::string(c.element) + " backend=cpu").c_str());
    gst_harness_set_src_caps_str(h, inCaps.c_str());
    gst_harness_set_sink_caps_str(h, (std::string("video/x-raw,format=") + c.out).c_str());
    const GstVideoInfo in = infoOf(inCaps);
    GstBuffer* buf = patternFrame(in, 1);
    const Image<std::uint8_t> luma = lumaOfFrame(in, buf);
    ASSERT_EQ(gst_harness_push(h, buf), GST_FLOW_OK);
    GstBuffer* out = gst_harness_pull(h);
    ASSERT_NE(out, nullptr);
    GstCaps* outCaps = gst_pad_get_current_caps(h->sinkpad);
    GstVideoInfo outInfo;
    ASSERT_TRUE(gst_video_info_from_caps(&outInfo, outCaps));
    EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&outInfo), 37);
    EXPECT_EQ(greyPixels(out, outInfo), expected(c.chain, luma, std::string(c.out) == "GRAY16_LE"));
    gst_caps_unref(outCaps);
    gst_buffer_unref(out);
    gst_harness_teardown(h);
}

std::vector<FormatCase> formatCases() {
    std::vector<FormatCase> cases;
    for (const char* in : {"GRAY8", "NV12", "NV21", "I420", "YUY2", "UYVY", "YVYU", "RGBA", "BGRA", "RGBx", "BGRx", "GRAY16_LE"})
        for (const char* out : {"GRAY8", "GRAY16_LE"}) {
            cases.push_back({"striateedges", "edges", in, out});
            cases.push_back({"striategabor sigma=3 wavelength=6 orientation=30 output=real gain=4",
                             "gabor sigma=3 wavelength=6 orientation=30 output=real gain=4", in, out});
        }
    cases.push_back({"striateblur sigma=1.5", "blur sigma=1.5", "NV12", "GRAY8"});
    // striateblur asked for grey from packed 4:2:2: the luma blurred; 16-bit grey stays 16-bit.
    cases.push_back({"striateblur sigma=1.5", "blur sigma=1.5", "YUY2", "GRAY8"});
    cases.push_back({"striateblur sigma=2", "blur sigma=2", "GRAY16_LE", "GRAY16_LE"});
    cases.push_back({"striateblur sigma=6 method=boxes", "blur sigma=6 method=boxes", "RGBA", "GRAY16_LE"});
    cases.push_back({"striategabor orientations=4", "gabor orientations=4", "I420", "GRAY8"});
    cases.push_back({"striateedges method=gabor output=overlay", "edges method=gabor output=overlay", "BGRx", "GRAY8"});
    for (const char* in : {"GRAY8", "NV12", "YUY2", "RGBx", "GRAY16_LE"})
        cases.push_back({"striatethreshold sigma=3 offset=0.01", "threshold sigma=3 offset=0.01", in, "GRAY8"});
    cases.push_back({"striatethreshold sigma=5 offset=-0.02 method=boxes", "threshold sigma=5 offset=-0.02 method=boxes",
                     "I420", "GRAY16_LE"});
    // striatechain: a whole chain in one backend, exactly as the chain string runs.
    for (const char* in : {"GRAY8", "NV12", "BGRA"})
        cases.push_back({"striatechain chain=\"blur sigma=2 ! gabor sigma=4 wavelength=8 orientations=6\"",
                         "blur sigma=2 ! gabor sigma=4 wavelength=8 orientations=6", in, "GRAY8"});
    cases.push_back({"striatechain chain=\"blur sigma=1 ! edges output=strength\"", "blur sigma=1 ! edges output=strength",
                     "UYVY", "GRAY16_LE"});
    return cases;
}

INSTANTIATE_TEST_SUITE_P(InAndOut, ElementFormats, ::testing::ValuesIn(formatCases()));

/// striateblur keeps colour formats: every channel or plane blurred, alpha copied. Packed 4:2:2
/// chroma (half width, full height) is blurred at the luma's size: taken there linearly between
/// neighbours, blurred at the full sigma, read back at its own sites. 21 columns: odd, so the
/// last 4:2:2 macropixel holds one pixel.
TEST(StriateBlur, ColourFormatsPassThroughBlurred) {
    requirePlugin();
    for (const char* format : {"RGBA", "I420", "NV12", "NV21", "YUY2", "UYVY", "YVYU"}) {
        const bool packed = std::string(format) == "YUY2" || std::string(format) == "UYVY" || std::string(format) == "YVYU";
        const std::string caps = std::string("video/x-raw,format=") + format + ",width=21,height=15,framerate=30/1";
        GstHarness* h = gst_harness_new_parse("striateblur sigma=2");
        gst_harness_set_src_caps_str(h, caps.c_str());
        const GstVideoInfo info = infoOf(caps);
        GstBuffer* buf = patternFrame(info, 2);
        GstVideoFrame inFrame;
        gst_video_frame_map(&inFrame, const_cast<GstVideoInfo*>(&info), buf, GST_MAP_READ);
        // The expected result of each component, from the cpu backend on that component.
        std::vector<std::vector<int>> want;
        for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS(&info); ++c) {
            const int w = GST_VIDEO_FRAME_COMP_WIDTH(&inFrame, c), hh = GST_VIDEO_FRAME_COMP_HEIGHT(&inFrame, c);
            Image<std::uint8_t> plane(w, hh);
            auto* d = static_cast<const guint8*>(GST_VIDEO_FRAME_COMP_DATA(&inFrame, c));
            for (int y = 0; y < hh; ++y)
                for (int x = 0; x < w; ++x)
                    plane.at(x, y) = d[y * GST_VIDEO_FRAME_COMP_STRIDE(&inFrame, c) + x * GST_VIDEO_FRAME_COMP_PSTRIDE(&inFrame, c)];
            if (c == 3) {  // alpha: copied
                std::vector<int> v;
                for (int y = 0; y < hh; ++y)
                    for (int x = 0; x < w; ++x) v.push_back(plane.at(x, y));
                want.push_back(v);
            } else if (packed && c > 0) {
                const int W = GST_VIDEO_INFO_WIDTH(&info);
                Image<std::uint8_t> wide(W, hh);
                for (int y = 0; y < hh; ++y)
                    for (int x = 0; x < W; ++x) {
                        const int k = x / 2, next = std::min(k + 1, w - 1);
                        wide.at(x, y) = static_cast<std::uint8_t>(x % 2 ? (plane.at(k, y) + plane.at(next, y) + 1) / 2 : plane.at(k, y));
                    }
                const std::vector<int> blurred = expected("blur sigma=2", wide, false);
                std::vector<int> v;
                for (int y = 0; y < hh; ++y)
                    for (int x = 0; x < w; ++x) v.push_back(blurred[y * W + 2 * x]);
                want.push_back(v);
            } else {
                const double sigma = (std::string(format) != "RGBA" && c > 0) ? 1.0 : 2.0;
                want.push_back(expected("blur sigma=" + std::to_string(sigma), plane, false));
            }
        }
        gst_video_frame_unmap(&inFrame);
        ASSERT_EQ(gst_harness_push(h, buf), GST_FLOW_OK);
        GstBuffer* out = gst_harness_pull(h);
        GstCaps* outCaps = gst_pad_get_current_caps(h->sinkpad);
        GstVideoInfo outInfo;
        ASSERT_TRUE(gst_video_info_from_caps(&outInfo, outCaps));
        EXPECT_EQ(GST_VIDEO_INFO_FORMAT(&outInfo), GST_VIDEO_INFO_FORMAT(&info)) << format;
        GstVideoFrame outFrame;
        gst_video_frame_map(&outFrame, &outInfo, out, GST_MAP_READ);
        for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS(&info); ++c) {
            std::vector<int> got;
            auto* d = static_cast<const guint8*>(GST_VIDEO_FRAME_COMP_DATA(&outFrame, c));
            for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT(&outFrame, c); ++y)
                for (int x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH(&outFrame, c); ++x)
                    got.push_back(d[y * GST_VIDEO_FRAME_COMP_STRIDE(&outFrame, c) + x * GST_VIDEO_FRAME_COMP_PSTRIDE(&outFrame, c)]);
            EXPECT_EQ(got, want[c]) << format << " component " << c;
        }
        gst_video_frame_unmap(&outFrame);
        gst_caps_unref(outCaps);
        gst_buffer_unref(out);
        gst_harness_teardown(h);
    }
}

/// GLib reports refused property values with g_warning; count them instead of printing.
struct WarningCounter {
    int count = 0;
    std::string last;
    guint handler;
    WarningCounter() {
        handler = g_log_set_handler(
            "GLib-GObject", static_cast<GLogLevelFlags>(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL),
            [](const gchar*, GLogLevelFlags, const gchar* msg, gpointer self) {
                static_cast<WarningCounter*>(self)->count++;
                static_cast<WarningCounter*>(self)->last = msg;
            },
            this);
        defaultHandler = g_log_set_default_handler(
            [](const gchar* domain, GLogLevelFlags level, const gchar* msg, gpointer self) {
                if (level & G_LOG_LEVEL_WARNING) {
                    static_cast<WarningCounter*>(self)->count++;
                    static_cast<WarningCounter*>(self)->last = msg;
                } else {
                    g_log_default_handler(domain, level, msg, nullptr);
                }
            },
            this);
    }
    ~WarningCounter() {
        g_log_remove_handler("GLib-GObject", handler);
        g_log_set_default_handler(defaultHandler, nullptr);
    }
    GLogFunc defaultHandler;
};

TEST(Properties, InvalidValuesAreRefusedWithAWarningAndTheOldValueKept) {
    requirePlugin();
    GstElement* b = gst_element_factory_make("striateblur", nullptr);
    WarningCounter w;
    g_object_set(b, "sigma", 3.0, nullptr);
    g_object_set(b, "sigma", 0.0, nullptr);  // out of range: GLib refuses
    g_object_set(b, "sigma", NAN, nullptr);  // GLib's range check lets NaN through; we refuse it
    double sigma = 0;
    g_object_get(b, "sigma", &sigma, nullptr);
    EXPECT_EQ(sigma, 3.0);
    EXPECT_EQ(w.count, 2);
    EXPECT_NE(w.last.find("sigma"), std::string::npos) << w.last;
    gst_object_unref(b);
}

/// Properties are set one at a time, in whatever order a launch line or an application names
/// them: each is stored as given, whatever the others hold at that moment.
TEST(Properties, AreIndependentOfTheirOrder) {
    requirePlugin();
    WarningCounter w;
    GstElement* e = gst_element_factory_make("striateedges", nullptr);
    g_object_set(e, "low-threshold", 0.2, "high-threshold", 0.3, nullptr);  // low above the default high first
    double low = 0, high = 0;
    g_object_get(e, "low-threshold", &low, "high-threshold", &high, nullptr);
    EXPECT_EQ(low, 0.2);
    EXPECT_EQ(high, 0.3);
    GstElement* g = gst_element_factory_make("striategabor", nullptr);
    g_object_set(g, "sigma", 0.4, nullptr);
    g_object_set(g, "method", 1 /* recursive */, nullptr);  // inconsistent with sigma 0.4: checked when used
    g_object_set(g, "sigma", 2.0, nullptr);                 // and consistent again
    gint method = 0;
    g_object_get(g, "method", &method, nullptr);
    EXPECT_EQ(method, 1);
    EXPECT_EQ(w.count, 0) << w.last;
    gst_object_unref(e);
    gst_object_unref(g);
}

/// Every stage element's properties are its stage's parameter table: the same names, and
/// defaults equal to the stage's.
TEST(Properties, EveryStageElementHasItsTablesParametersAndDefaults) {
    requirePlugin();
    for (const StageInfo& stage : stageInfos()) {
        const std::string name = std::string("striate") + stage.name;
        GstElement* e = gst_element_factory_make(name.c_str(), nullptr);
        ASSERT_NE(e, nullptr) << name;
        for (const ParamDef& p : stage.params) {
            GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(e), p.name);
            ASSERT_NE(spec, nullptr) << name << " has no property " << p.name;
            GValue v = G_VALUE_INIT;
            g_value_init(&v, spec->value_type);
            g_object_get_property(G_OBJECT(e), p.name, &v);
            // The property's value, serialised, read back as the chain syntax reads it.
            gchar* text = gst_value_serialize(&v);
            Stage read = stage.defaults;
            p.set(read, -12345);
            EXPECT_TRUE(p.parse(text, &read)) << name << " " << p.name << "=" << text;
            EXPECT_EQ(p.get(read), p.get(stage.defaults)) << name << " " << p.name << "=" << text;
            g_free(text);
            g_value_unset(&v);
        }
        gst_object_unref(e);
    }
}

TEST(Properties, DefaultsMatchTheChainSyntax) {
    requirePlugin();
    GstElement* g = gst_element_factory_make("striategabor", nullptr);
    double sigma, wavelength;
    int orientations;
    gboolean removeDc;
    gchar* active = nullptr;
    g_object_get(g, "sigma", &sigma, "wavelength", &wavelength, "orientations", &orientations, "remove-dc", &removeDc,
                 "active-backend", &active, nullptr);
    const GaborSpec d;
    EXPECT_EQ(sigma, d.sigma);
    EXPECT_EQ(wavelength, d.wavelength);
    EXPECT_EQ(orientations, d.orientations);
    EXPECT_TRUE(removeDc);
    EXPECT_STREQ(active, "none");
    g_free(active);
    gst_object_unref(g);
}

/// One GRAY8 frame through `element` (with its backend property set); the element's active
/// backend is returned in `active`.
std::vector<int> runOnce(const std::string& element, const GstVideoInfo& in, GstBuffer* buf, std::string* active) {
    GstHarness* h = gst_harness_new_parse(element.c_str());
    gst_harness_set_src_caps_str(h, "video/x-raw,format=GRAY8,width=61,height=47,framerate=30/1");
    gst_harness_set_sink_caps_str(h, "video/x-raw,format=GRAY8");
    EXPECT_EQ(gst_harness_push(h, buf), GST_FLOW_OK);
    GstBuffer* out = gst_harness_pull(h);
    EXPECT_NE(out, nullptr);
    std::vector<int> v = out ? greyPixels(out, in) : std::vector<int>{};
    const std::string name = element.substr(0, element.find(' '));
    GstElement* e = gst_harness_find_element(h, name.c_str());
    gchar* a = nullptr;
    g_object_get(e, "active-backend", &a, nullptr);
    *active = a ? a : "";
    g_free(a);
    gst_object_unref(e);
    if (out) gst_buffer_unref(out);
    gst_harness_teardown(h);
    return v;
}

struct GpuCase {
    const char* element;
    const char* backend;
    int tolerance;          // largest 8-bit difference to the cpu backend
    double identicalShare;  // share of pixels that must be equal
};

class GpuBackend : public ::testing::TestWithParam<GpuCase> {};

/// Forced cpu against a forced GLES backend on the same frames: equal within docs/algorithms.md 8
/// (2e-4 and 5e-4 of the unit range, and packed 1/255 and 2/255, round to at most one or two 8-bit
/// codes; edges 99.9% of pixels, packed 99.5%).
TEST_P(GpuBackend, MatchesCpuWithinTheBudget) {
    requirePlugin();
    const GpuCase& c = GetParam();
    const GstVideoInfo in = infoOf("video/x-raw,format=GRAY8,width=61,height=47");
    std::string cpuActive, gpuActive;
    const std::vector<int> cpu = runOnce(std::string(c.element) + " backend=cpu", in, patternFrame(in, 5), &cpuActive);
    const std::string backend = std::string(c.backend).substr(0, std::string(c.backend).find(' '));
    const std::vector<int> gpu =
        runOnce(std::string(c.element) + " backend=" + c.backend, in, patternFrame(in, 5), &gpuActive);
    EXPECT_EQ(cpuActive, "cpu");
    ASSERT_EQ(gpuActive, backend);
    ASSERT_EQ(cpu.size(), gpu.size());
    int equal = 0, worst = 0;
    for (std::size_t i = 0; i < cpu.size(); ++i) {
        equal += cpu[i] == gpu[i];
        worst = std::max(worst, std::abs(cpu[i] - gpu[i]));
    }
    if (c.tolerance > 0) {
        EXPECT_LE(worst, c.tolerance) << c.element;
    }
    EXPECT_GE(equal, c.identicalShare * cpu.size()) << c.element << ": " << cpu.size() - equal << " pixels differ";
}

INSTANTIATE_TEST_SUITE_P(Elements, GpuBackend,
                         ::testing::Values(GpuCase{"striateblur sigma=2", "gles-compute", 1, 0.0},
                                           GpuCase{"striateblur sigma=6 method=boxes", "gles-compute", 1, 0.0},
                                           GpuCase{"striateblur sigma=6 method=recursive", "gles-compute", 1, 0.0},
                                           GpuCase{"striategabor sigma=4 wavelength=8 orientation=30 gain=4", "gles-compute", 1, 0.0},
                                           GpuCase{"striategabor sigma=2 wavelength=6 orientations=4 gain=4", "gles-compute", 1, 0.0},
                                           GpuCase{"striateedges", "gles-compute", 0, 0.999},
                                           GpuCase{"striateedges method=gabor", "gles-compute", 0, 0.999},
                                           GpuCase{"striateblur sigma=2", "gles-fragment", 1, 0.0},
                                           GpuCase{"striateblur sigma=6 method=recursive", "gles-fragment board=rpi3", 1, 0.0},
                                           GpuCase{"striategabor sigma=4 wavelength=8 orientation=30 gain=4", "gles-fragment", 1, 0.0},
                                           GpuCase{"striategabor sigma=2 wavelength=6 orientations=4 gain=4", "gles-fragment board=tight", 2, 0.0},
                                           GpuCase{"striateedges", "gles-fragment", 0, 0.999},
                                           GpuCase{"striateedges method=gabor", "gles-fragment board=rpi3", 0, 0.995}));

/// The text of the next warning on `bus`, or "" when there is none.
std::string popWarning(GstBus* bus) {
    GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_WARNING);
    if (!m) return "";
    GError* err = nullptr;
    gst_message_parse_warning(m, &err, nullptr);
    std::string text = err->message;
    g_error_free(err);
    gst_message_unref(m);
    return text;
}

/// The active backend of the harness's element made by factory `name`.
std::string activeBackend(GstHarness* h, const char* name) {
    GstElement* e = gst_harness_find_element(h, name);
    gchar* active = nullptr;
    g_object_get(e, "active-backend", &active, nullptr);
    gst_object_unref(e);
    std::string s = active ? active : "";
    g_free(active);
    return s;
}

/// The text of the next error on `bus`, or "" when there is none.
std::string popError(GstBus* bus) {
    GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
    if (!m) return "";
    GError* err = nullptr;
    gst_message_parse_error(m, &err, nullptr);
    std::string text = err->message;
    g_error_free(err);
    gst_message_unref(m);
    return text;
}

/// Either order of the same two thresholds filters the same frame alike.
TEST(Properties, EitherOrderGivesTheSameEdges) {
    requirePlugin();
    const GstVideoInfo info = infoOf("video/x-raw,format=GRAY8,width=61,height=47");
    std::string active;
    const auto a = runOnce("striateedges low-threshold=0.2 high-threshold=0.3 backend=cpu", info, patternFrame(info, 5), &active);
    const auto b = runOnce("striateedges high-threshold=0.3 low-threshold=0.2 backend=cpu", info, patternFrame(info, 5), &active);
    EXPECT_EQ(a, b);
    GstBuffer* frame = patternFrame(info, 5);
    EXPECT_EQ(a, expected("edges low-threshold=0.2 high-threshold=0.3", lumaOfFrame(info, frame), false));
    gst_buffer_unref(frame);
}

/// board is documented as changing in NULL or READY only (GST_PARAM_MUTABLE_READY): while playing
/// it is refused with a warning, the value kept.
TEST(Properties, BoardIsRefusedWhilePlaying) {
    requirePlugin();
    GstHarness* h = gst_harness_new_parse("striateedges backend=cpu board=host");
    gst_harness_set_src_caps_str(h, "video/x-raw,format=GRAY8,width=16,height=16,framerate=30/1");
    ASSERT_EQ(gst_harness_push(h, patternFrame(infoOf("video/x-raw,format=GRAY8,width=16,height=16"), 1)), GST_FLOW_OK);
    gst_buffer_unref(gst_harness_pull(h));
    GstElement* e = gst_harness_find_element(h, "striateedges");
    WarningCounter w;
    g_object_set(e, "board", "rpi3", nullptr);
    gchar* board = nullptr;
    g_object_get(e, "board", &board, nullptr);
    EXPECT_STREQ(board, "host");
    EXPECT_EQ(w.count, 1);
    EXPECT_NE(w.last.find("refusing board 'rpi3' in the PLAYING state"), std::string::npos) << w.last;
    g_free(board);
    gst_object_unref(e);
    gst_harness_teardown(h);
}

/// The error `launch` posts when caps `caps` arrive and a frame is pushed (which must not pass).
std::string errorAtCapsTime(const std::string& launch, const std::string& caps) {
    GstHarness* h = gst_harness_new_parse(launch.c_str());
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(h->element, bus);
    gst_harness_set_src_caps_str(h, caps.c_str());
    EXPECT_NE(gst_harness_push(h, patternFrame(infoOf(caps), 1)), GST_FLOW_OK) << launch;
    const std::string error = popError(bus);
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
    return error;
}

/// Inconsistent settings at caps time: one error naming the problem, no frame filtered with
/// settings the user did not ask for.
TEST(Properties, InconsistentSettingsAreAnErrorAtCapsTime) {
    requirePlugin();
    const std::string error = errorAtCapsTime("striategabor sigma=0.4 method=recursive backend=cpu",
                                              "video/x-raw,format=GRAY8,width=16,height=16,framerate=30/1");
    EXPECT_NE(error.find("Inconsistent settings: sigma=0.4 is below 0.5"), std::string::npos) << error;
}

/// A frame no backend takes (wider than kMaxDimension) is refused at caps time, naming the limit,
/// before any frame is filtered.
TEST(Caps, ASizeNoBackendTakesIsAnErrorAtCapsTime) {
    requirePlugin();
    const std::string error =
        errorAtCapsTime("striateblur backend=cpu", "video/x-raw,format=GRAY8,width=40000,height=2,framerate=30/1");
    EXPECT_NE(error.find("Cannot filter 40000x2 frames"), std::string::npos) << error;
    EXPECT_NE(error.find("32768"), std::string::npos) << error;
}

/// striatechain's chain reads back spelled out; a chain that does not parse is an error at caps
/// time naming the stage and column.
TEST(StriateChain, ReadsBackCanonicalAndRefusesABadChainAtCapsTime) {
    requirePlugin();
    GstElement* e = gst_element_factory_make("striatechain", nullptr);
    g_object_set(e, "chain", "blur sigma=3 ! threshold", nullptr);
    gchar* text = nullptr;
    g_object_get(e, "chain", &text, nullptr);
    EXPECT_STREQ(text, "blur sigma=3 method=auto ! threshold sigma=4 offset=0.02 method=auto");
    g_free(text);
    gst_object_unref(e);
    const std::string error = errorAtCapsTime("striatechain chain=\"blur sigma=2 ! sharpen\" backend=cpu",
                                              "video/x-raw,format=GRAY8,width=16,height=16,framerate=30/1");
    EXPECT_NE(error.find("chain stage 2 (column 16): unknown stage 'sharpen'"), std::string::npos) << error;
}

/// While playing, settings that become inconsistent give one warning and the running
/// configuration stays until they are consistent again; the stream goes on.
TEST(Properties, InconsistentSettingsWhilePlayingWarnOnceAndKeepTheRunningOnes) {
    requirePlugin();
    const std::string caps = "video/x-raw,format=GRAY8,width=40,height=30,framerate=30/1";
    const GstVideoInfo info = infoOf(caps);
    GstHarness* h = gst_harness_new_parse("striateedges backend=cpu");
    gst_harness_set_src_caps_str(h, caps.c_str());
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(h->element, bus);
    GstElement* e = gst_harness_find_element(h, "striateedges");
    auto pushPull = [&](int seed) {
        GstBuffer* in = patternFrame(info, seed);
        Image<std::uint8_t> luma = lumaOfFrame(info, in);
        EXPECT_EQ(gst_harness_push(h, in), GST_FLOW_OK);
        GstBuffer* out = gst_harness_pull(h);
        std::vector<int> v = out ? greyPixels(out, info) : std::vector<int>{};
        if (out) gst_buffer_unref(out);
        return std::make_pair(std::move(v), std::move(luma));
    };
    pushPull(1);
    g_object_set(e, "low-threshold", 0.5, nullptr);  // above the high threshold (0.05)
    for (int seed = 2; seed < 5; ++seed) {
        const auto [got, luma] = pushPull(seed);
        EXPECT_EQ(got, expected("edges", luma, false)) << "the running settings stay";
    }
    const std::string warning = popWarning(bus);
    EXPECT_NE(warning.find("Inconsistent settings: low-threshold=0.5 is above high-threshold=0.05"), std::string::npos)
        << warning;
    EXPECT_EQ(popWarning(bus), "") << "one warning, not one per frame";
    g_object_set(e, "high-threshold", 0.6, nullptr);  // consistent again: taken at the next frame
    const auto [got, luma] = pushPull(5);
    EXPECT_EQ(got, expected("edges low-threshold=0.5 high-threshold=0.6", luma, false));
    EXPECT_EQ(popError(bus), "");
    gst_object_unref(e);
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}

TEST(Backend, UnavailableGpuBackendWarnsOnTheBusAndFallsBackToCpu) {
    requirePlugin();
    // The rpi3 profile has no compute shaders: gles-compute cannot run under it.
    GstHarness* h = gst_harness_new_parse("striateedges backend=gles-compute board=rpi3");
    gst_harness_set_src_caps_str(h, "video/x-raw,format=GRAY8,width=16,height=16,framerate=30/1");
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(h->element, bus);
    ASSERT_EQ(gst_harness_push(h, patternFrame(infoOf("video/x-raw,format=GRAY8,width=16,height=16"), 3)), GST_FLOW_OK);
    GstBuffer* out = gst_harness_pull(h);
    EXPECT_NE(out, nullptr);  // the stream goes on
    const std::string warning = popWarning(bus);
    EXPECT_NE(warning.find("gles-compute"), std::string::npos) << warning;
    EXPECT_NE(warning.find("using the cpu backend"), std::string::npos) << warning;
    EXPECT_EQ(activeBackend(h, "striateedges"), "cpu");
    gst_buffer_unref(out);
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}

TEST(Backend, AChainBeyondTheBoardsGpuMemoryRunsOnCpuNamingTheFigure) {
    requirePlugin();
    // The tight profile lends 32 MiB; gles-fragment's 6-orientation bank at 1920x1080 plans
    // 41.5 MiB there.
    GstHarness* h = gst_harness_new_parse("striategabor backend=gles-fragment board=tight sigma=4 wavelength=8 orientations=6");
    const char* caps = "video/x-raw,format=GRAY8,width=1920,height=1080";
    gst_harness_set_src_caps_str(h, (std::string(caps) + ",framerate=30/1").c_str());
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(h->element, bus);
    ASSERT_EQ(gst_harness_push(h, patternFrame(infoOf(caps), 3)), GST_FLOW_OK);
    GstBuffer* out = gst_harness_pull(h);
    EXPECT_NE(out, nullptr);  // the stream goes on
    const std::string warning = popWarning(bus);
    const std::string active = activeBackend(h, "striategabor");
    gst_buffer_unref(out);
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
    if (warning.find("no GLES context") != std::string::npos) GTEST_SKIP() << "no GPU here: " << warning;
    EXPECT_NE(warning.find("of GPU memory for 1920x1080 frames"), std::string::npos) << warning;
    EXPECT_NE(warning.find("more than the 32.0 MiB the board lends it"), std::string::npos) << warning;
    EXPECT_NE(warning.find("using the cpu backend"), std::string::npos) << warning;
    EXPECT_EQ(active, "cpu");
}

/// The backend is decided once per caps, not per frame nor per change of a stage's value; again
/// when the backend setting changes, and for new caps.
TEST(Backend, DecidedOncePerCaps) {
    requirePlugin();
    test::BackendDecisions decisions;
    GstHarness* h = gst_harness_new_parse("striateedges");
    const std::string caps = "video/x-raw,format=GRAY8,width=32,height=24";
    gst_harness_set_src_caps_str(h, (caps + ",framerate=30/1").c_str());
    GstElement* edges = gst_harness_find_element(h, "striateedges");
    const GstVideoInfo info = infoOf(caps);
    for (int i = 0; i < 4; ++i) {
        g_object_set(edges, "high-threshold", 0.2 + 0.1 * i, nullptr);  // values: configured in place
        ASSERT_EQ(gst_harness_push(h, patternFrame(info, i)), GST_FLOW_OK);
        gst_buffer_unref(gst_harness_pull(h));
    }
    EXPECT_EQ(decisions.count(), 1) << "four frames, four value changes, one caps";
    g_object_set(edges, "backend", static_cast<gint>(BackendKind::Cpu), nullptr);
    for (int i = 0; i < 2; ++i) {
        ASSERT_EQ(gst_harness_push(h, patternFrame(info, i)), GST_FLOW_OK);
        gst_buffer_unref(gst_harness_pull(h));
    }
    EXPECT_EQ(decisions.count(), 2) << "the backend setting changed once";
    const std::string bigger = "video/x-raw,format=GRAY8,width=40,height=30";
    gst_harness_set_src_caps_str(h, (bigger + ",framerate=30/1").c_str());
    for (int i = 0; i < 2; ++i) {
        ASSERT_EQ(gst_harness_push(h, patternFrame(infoOf(bigger), i)), GST_FLOW_OK);
        gst_buffer_unref(gst_harness_pull(h));
    }
    EXPECT_EQ(decisions.count(), 3) << "new caps";
    gst_object_unref(edges);
    gst_harness_teardown(h);
}

#ifdef STRIATE_HAVE_GLES
/// Mesa unloads its DRI driver when the last display using it is terminated, and LeakSanitizer
/// then reports the driver's global state, unmapped with it, as leaked: keeps every loaded
/// driver mapped (collected first: no dlopen inside dl_iterate_phdr).
void pinDriDrivers() {
    std::vector<std::string> names;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* out) {
            if (info->dlpi_name && std::string_view(info->dlpi_name).find("/dri/") != std::string_view::npos)
                static_cast<std::vector<std::string>*>(out)->push_back(info->dlpi_name);
            return 0;
        },
        &names);
    for (const std::string& n : names) dlopen(n.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

TEST(Backend, GpuFailureMidStreamWarnsAndTheFrameRunsOnCpu) {
    requirePlugin();
    // The GPU goes away while playing: the test terminates the EGL display the backend's context
    // lives on (the Mesa surfaceless display, the first the backend tries, is one per process),
    // so the backend's next eglMakeCurrent fails as after a lost device.
    auto getDisplay = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
    const EGLDisplay display =
        getDisplay ? getDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr) : EGL_NO_DISPLAY;
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, nullptr, nullptr))
        GTEST_SKIP() << "no Mesa surfaceless EGL display here: the backend's display is not one this test can reach";
    const std::string caps = "video/x-raw,format=GRAY8,width=40,height=30,framerate=30/1";
    const GstVideoInfo info = infoOf(caps);
    GstHarness* h = gst_harness_new_parse("striateblur sigma=2 backend=gles-fragment");
    gst_harness_set_src_caps_str(h, caps.c_str());
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(h->element, bus);
    ASSERT_EQ(gst_harness_push(h, patternFrame(info, 1)), GST_FLOW_OK);
    gst_buffer_unref(gst_harness_pull(h));
    ASSERT_EQ(activeBackend(h, "striateblur"), "gles-fragment");

    pinDriDrivers();
    ASSERT_TRUE(eglTerminate(display));
    GstBuffer* in = patternFrame(info, 2);
    const std::vector<int> want = expected("blur sigma=2", lumaOfFrame(info, in), false);
    ASSERT_EQ(gst_harness_push(h, in), GST_FLOW_OK);
    GstBuffer* out = gst_harness_pull(h);
    ASSERT_NE(out, nullptr);  // the frame is not dropped: it ran again on the cpu backend
    EXPECT_EQ(greyPixels(out, info), want);
    gst_buffer_unref(out);
    EXPECT_EQ(activeBackend(h, "striateblur"), "cpu");
    const std::string warning = popWarning(bus);
    EXPECT_NE(warning.find("gles-fragment failed: eglMakeCurrent"), std::string::npos) << warning;
    EXPECT_NE(warning.find("using the cpu backend"), std::string::npos) << warning;
    EXPECT_EQ(popWarning(bus), "") << "one warning, not one per frame";
    // The stream goes on on the cpu backend.
    ASSERT_EQ(gst_harness_push(h, patternFrame(info, 3)), GST_FLOW_OK);
    gst_buffer_unref(gst_harness_pull(h));
    EXPECT_EQ(popWarning(bus), "");
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);  // the backend's clean-up on a terminated display must not crash
    EXPECT_TRUE(eglInitialize(display, nullptr, nullptr));  // for the tests after this one
}
#endif

TEST(Properties, ChangeWhilePlayingTakesEffectAtTheNextFrame) {
    requirePlugin();
    const std::string caps = "video/x-raw,format=GRAY8,width=24,height=18,framerate=30/1";
    GstHarness* h = gst_harness_new_parse("striateblur sigma=1");
    gst_harness_set_src_caps_str(h, caps.c_str());
    const GstVideoInfo info = infoOf(caps);
    GstBuffer* in = patternFrame(info, 4);
    const Image<std::uint8_t> luma = lumaOfFrame(info, in);
    gst_harness_push(h, gst_buffer_copy(in));
    GstBuffer* first = gst_harness_pull(h);
    GstElement* blur = gst_harness_find_element(h, "striateblur");
    g_object_set(blur, "sigma", 5.0, nullptr);
    gst_object_unref(blur);
    gst_harness_push(h, in);
    GstBuffer* second = gst_harness_pull(h);
    EXPECT_EQ(greyPixels(first, info), expected("blur sigma=1", luma, false));
    EXPECT_EQ(greyPixels(second, info), expected("blur sigma=5", luma, false));
    gst_buffer_unref(first);
    gst_buffer_unref(second);
    gst_harness_teardown(h);
}

/// Two pipelines in one process, each element changed from this thread while its streaming
/// thread filters (the properties' lock against the streaming thread's reads; run under
/// ThreadSanitizer by scripts/tsan.sh): both run every frame to the end without an error.
TEST(Concurrency, TwoPipelinesWithPropertyChangesWhilePlaying) {
    requirePlugin();
    struct Run {
        GstElement* pipeline;
        GstElement* filter;
        GstElement* sink;
        int frames = 0;
        std::atomic<bool> done{false};
    };
    constexpr int kFrames = 600;
    auto make = [](Run& r, const char* element, const char* backend) {
        r.pipeline = gst_pipeline_new(nullptr);
        GstElement* src = gst_element_factory_make("striatesrc", nullptr);
        g_object_set(src, "num-buffers", kFrames, "is-live", FALSE, nullptr);
        r.filter = gst_element_factory_make(element, nullptr);
        gst_util_set_object_arg(G_OBJECT(r.filter), "backend", backend);
        // The size asked by the sink's caps (no capsfilter: this test's registry holds only the
        // plugin).
        GstCaps* caps = gst_caps_from_string("video/x-raw,format=GRAY8,width=48,height=32");
        r.sink = GST_ELEMENT(g_object_new(GST_TYPE_APP_SINK, "sync", FALSE, "max-buffers", 4, "caps", caps, nullptr));
        gst_caps_unref(caps);
        gst_bin_add_many(GST_BIN(r.pipeline), src, r.filter, r.sink, nullptr);
        EXPECT_TRUE(gst_element_link_many(src, r.filter, r.sink, nullptr));
        EXPECT_NE(gst_element_set_state(r.pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    };
    Run runs[2];
    make(runs[0], "striateedges", "cpu");
    make(runs[1], "striateblur", "auto");
    std::thread pullers[2];
    for (int i = 0; i < 2; ++i)
        pullers[i] = std::thread([&r = runs[i]] {
            // A stream stopped by an error ends no sample within 20 s.
            while (GstSample* s = gst_app_sink_try_pull_sample(GST_APP_SINK(r.sink), 20 * GST_SECOND)) {
                gst_sample_unref(s);
                ++r.frames;
            }
            r.done = true;
        });
    // Change the settings while the streaming threads filter, until both have finished.
    for (int k = 0; !(runs[0].done && runs[1].done); ++k) {
        g_object_set(runs[0].filter, "low-threshold", 0.01 + 0.01 * (k % 3), "high-threshold", 0.05 + 0.02 * (k % 4), nullptr);
        g_object_set(runs[1].filter, "sigma", 1.0 + k % 5, nullptr);
        if (k % 7 == 0) gst_util_set_object_arg(G_OBJECT(runs[1].filter), "method", k % 2 ? "boxes" : "auto");
        g_usleep(2000);
    }
    for (int i = 0; i < 2; ++i) {
        pullers[i].join();
        GstBus* bus = gst_element_get_bus(runs[i].pipeline);
        EXPECT_EQ(popError(bus), "") << i;
        gst_object_unref(bus);
        EXPECT_EQ(runs[i].frames, kFrames) << i;
        gst_element_set_state(runs[i].pipeline, GST_STATE_NULL);
        gst_object_unref(runs[i].pipeline);
    }
}

TEST(Caps, NonVideoCapsAreRefused) {
    requirePlugin();
    GstHarness* h = gst_harness_new_parse("striateedges");
    gst_harness_set_src_caps_str(h, "video/x-raw,format=v210,width=48,height=16,framerate=30/1");  // 10-bit 4:2:2
    GstBuffer* buf = gst_buffer_new_allocate(nullptr, 128 * 16, nullptr);
    EXPECT_EQ(gst_harness_push(h, buf), GST_FLOW_NOT_NEGOTIATED);
    gst_harness_teardown(h);
}


} // namespace
} // namespace striate
