// Every element in GL memory, in a GstGL context whose pixel-store state is not the default: a
// test-only element (striateglstate) leaves pack and unpack alignment and row length set in
// GstGL's context before the element under test, as GstGL 1.26's download leaves
// GL_PACK_ROW_LENGTH behind; a second one after it checks that the element put all of it back.
// (Skips and bound pixel buffers are left to tests/gles/test_pixel_store.cpp: kStore says why.)
// The output must equal the same line's in a clean context, with no warning (a GL error would
// have sent the frame to the cpu). Runs in the sanitizer build and under valgrind
// (docs/testing.md): before the fix the hysteresis read-back wrote four times its buffer's size.
#include <gst/app/gstappsink.h>
#include <gst/base/gstbasetransform.h>
#include <gst/gl/gl.h>
#include <gst/gl/gstglfuncs.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "tests/pipeline/element_support.h"

#ifndef GL_PACK_ROW_LENGTH
#define GL_PACK_ROW_LENGTH 0x0D02
#define GL_UNPACK_ROW_LENGTH 0x0CF2
#endif

namespace striate {
namespace {

// ---- striateglstate: the test-only element ----------------------------------------------------

/// One pixel-store parameter, the value the element leaves and GstGL's default.
struct StoreValue {
    GLenum name;
    GLint messy;
    GLint clean;
    bool rows;  // a row length or skip: GLES 3.0, or GLES 2.0 with EXT_unpack_subimage / NV_pack_subimage
    bool pack;
};
/// What GstGL sets before its own transfers, and leaves behind (1.26: the last download's row
/// length). Skips and bound pixel buffers it never sets, so they would break GstGL's own lazy
/// upload of the element's input (at its GL map): tests/gles/test_pixel_store.cpp covers those.
constexpr std::array<StoreValue, 4> kStore{{
    {GL_PACK_ALIGNMENT, 8, 4, false, true},
    {GL_UNPACK_ALIGNMENT, 2, 4, false, false},
    {GL_PACK_ROW_LENGTH, 1000, 0, true, true},
    {GL_UNPACK_ROW_LENGTH, 1000, 0, true, false},
}};

struct GlStateElement {
    GstBaseTransform parent;
    gboolean check;
    gchar* mismatch;  // what check found wrong, for the test to read
};
struct GlStateElementClass {
    GstBaseTransformClass parent;
};

G_DEFINE_TYPE(GlStateElement, gl_state_element, GST_TYPE_BASE_TRANSFORM)

/// "0x0D02": a GL name as the headers write it.
std::string glName(GLenum name) {
    char text[16];
    g_snprintf(text, sizeof text, "0x%04X", name);
    return text;
}

bool has(GstGLContext* context, const StoreValue& v) {
    if (!v.rows || gst_gl_context_check_gl_version(context, GST_GL_API_GLES2, 3, 0)) return true;
    return gst_gl_context_check_feature(context, v.pack ? "GL_NV_pack_subimage" : "GL_EXT_unpack_subimage");
}

void setState(GstGLContext* context, gpointer) {
    for (const StoreValue& v : kStore)
        if (has(context, v)) context->gl_vtable->PixelStorei(v.name, v.messy);
}

void checkAndCleanState(GstGLContext* context, gpointer data) {
    auto* self = static_cast<GlStateElement*>(data);
    const GstGLFuncs* gl = context->gl_vtable;
    std::string wrong;
    for (const StoreValue& v : kStore) {
        if (!has(context, v)) continue;
        GLint value = -1;
        gl->GetIntegerv(v.name, &value);
        if (value != v.messy) {  // appended piece by piece: gcc 12's -Wrestrict misreads `" " + std::string`
            wrong += ' ';
            wrong += glName(v.name);
            wrong += '=';
            wrong += std::to_string(value);
        }
        gl->PixelStorei(v.name, v.clean);  // GstGL's own transfers after us assume the defaults
    }
    if (!wrong.empty() && !self->mismatch) self->mismatch = g_strdup(wrong.c_str());
}

GstFlowReturn gl_state_transform_ip(GstBaseTransform* transform, GstBuffer* buffer) {
    auto* self = reinterpret_cast<GlStateElement*>(transform);
    GstMemory* memory = gst_buffer_n_memory(buffer) > 0 ? gst_buffer_peek_memory(buffer, 0) : nullptr;
    if (!memory || !gst_is_gl_base_memory(memory)) {
        GST_ELEMENT_ERROR(self, STREAM, FORMAT, ("striateglstate needs GL memory"), (nullptr));
        return GST_FLOW_ERROR;
    }
    GstGLContext* context = GST_GL_BASE_MEMORY_CAST(memory)->context;
    // GstGL uploads a frame's texture lazily, at its first GL map, with its own row length: done
    // here, before the state is left, so that only the element under test runs in between.
    for (guint i = 0; !self->check && i < gst_buffer_n_memory(buffer); ++i) {
        GstMapInfo map;
        GstMemory* plane = gst_buffer_peek_memory(buffer, i);
        if (gst_memory_map(plane, &map, static_cast<GstMapFlags>(GST_MAP_READ | GST_MAP_GL))) gst_memory_unmap(plane, &map);
    }
    gst_gl_context_thread_add(context, self->check ? checkAndCleanState : setState, self);
    return GST_FLOW_OK;
}

void gl_state_finalize(GObject* object) {
    g_free(reinterpret_cast<GlStateElement*>(object)->mismatch);
    G_OBJECT_CLASS(gl_state_element_parent_class)->finalize(object);
}

void gl_state_set_property(GObject* object, guint id, const GValue* value, GParamSpec* spec) {
    if (id == 1) reinterpret_cast<GlStateElement*>(object)->check = g_value_get_boolean(value);
    else G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, spec);
}

void gl_state_get_property(GObject* object, guint id, GValue* value, GParamSpec* spec) {
    auto* self = reinterpret_cast<GlStateElement*>(object);
    if (id == 1) g_value_set_boolean(value, self->check);
    else if (id == 2) g_value_set_string(value, self->mismatch);
    else G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, spec);
}

void gl_state_element_class_init(GlStateElementClass* klass) {
    auto* object = G_OBJECT_CLASS(klass);
    object->set_property = gl_state_set_property;
    object->get_property = gl_state_get_property;
    object->finalize = gl_state_finalize;
    g_object_class_install_property(object, 1,
        g_param_spec_boolean("check", "Check", "Check the state that a striateglstate upstream left, then clear it",
                             FALSE, static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)));
    g_object_class_install_property(object, 2,
        g_param_spec_string("mismatch", "Mismatch", "What check found changed (null: nothing)", nullptr,
                            static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
    auto* element = GST_ELEMENT_CLASS(klass);
    gst_element_class_set_static_metadata(element, "GL pixel-store state (test only)", "Filter/Video",
                                          "Leaves non-default pixel-store state in GstGL's context, or checks it",
                                          "Striate tests");
    GstCaps* caps = gst_caps_from_string("video/x-raw(memory:GLMemory)");
    gst_element_class_add_pad_template(element, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
    gst_element_class_add_pad_template(element, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
    gst_caps_unref(caps);
    auto* transform = GST_BASE_TRANSFORM_CLASS(klass);
    transform->transform_ip = gl_state_transform_ip;
    transform->passthrough_on_same_caps = TRUE;
}

void gl_state_element_init(GlStateElement* self) {
    gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(self), TRUE);
}

gboolean registerElement(GstPlugin* plugin) {
    return gst_element_register(plugin, "striateglstate", GST_RANK_NONE, gl_state_element_get_type());
}

// ---- the test -----------------------------------------------------------------------------------

/// The test-only element, and the installed plugins the lines need (capsfilter, appsink, glupload
/// and gldownload), each file loaded alone: the tests' registry holds the build tree's plugin only
/// (tests/CMakeLists.txt, STRIATE_GST_PLUGINS).
class GlEnvironment : public ::testing::Environment {
public:
    void SetUp() override {
        gst_plugin_register_static(GST_VERSION_MAJOR, GST_VERSION_MINOR, "striateglstate", "test-only GL state element",
                                   registerElement, "0", "LGPL", "striate", "striate", "https://example.invalid");
        const char* paths = g_getenv("STRIATE_GST_PLUGINS");
        gchar** files = g_strsplit(paths ? paths : "", ":", -1);
        for (gchar** f = files; *f; ++f) {
            GError* error = nullptr;
            if (GstPlugin* p = gst_plugin_load_file(*f, &error)) gst_object_unref(p);
            g_clear_error(&error);  // a missing one: the test skips naming glupload
        }
        g_strfreev(files);
    }
};
const auto* const kGlEnvironment = ::testing::AddGlobalTestEnvironment(new GlEnvironment);

struct GlCase {
    const char* element;
    const char* in;   // the input format
    const char* out;  // the element's output format
};

std::string caseName(const ::testing::TestParamInfo<GlCase>& info) {
    std::string s = std::string(info.param.element) + "_" + info.param.in + "_" + info.param.out;
    for (char& c : s)
        if (!g_ascii_isalnum(c)) c = '_';
    return s;
}

struct RunResult {
    std::vector<guint8> bytes;  // every frame's pixels, row after row
    int frames = 0;
    std::string messages;  // warnings and errors on the bus
    std::string backend;   // the element's active-backend
    std::string mismatch;  // what the checking striateglstate found
    int idlePolls = 0;     // polls in a row without a buffer
};

/// Drops the test's reference to `pipeline` and waits, up to 30 s, until the pipeline is finalized.
/// GStreamer itself can hold the last reference a moment longer, on a thread of GLib's pool inside
/// libgstreamer, and the line's GstGLDisplay goes with the pipeline. Finalizing that display calls
/// eglTerminate on the EGL device's EGLDisplay, which is one per device and shared by every line
/// (EGL does not count eglInitialize). A line that began before then had its new context's
/// eglMakeCurrent fail with EGL_BAD_DISPLAY: glupload's "Failed to activate the GL Context", about
/// 1 run in 150 under load (docs/testing.md).
bool unrefAndAwaitFinalize(GstElement* pipeline) {
    struct Finalized {
        GMutex mutex;
        GCond cond;
        bool done = false;
    };
    auto* f = new Finalized;
    g_mutex_init(&f->mutex);
    g_cond_init(&f->cond);
    // Object data is cleared at the end of GObject's finalize, after GstElement's has let go of
    // the contexts (the GL display) it was given.
    static const GQuark key = g_quark_from_static_string("striate-test-finalized");
    g_object_set_qdata_full(G_OBJECT(pipeline), key, f, [](gpointer data) {
        auto* finalized = static_cast<Finalized*>(data);
        g_mutex_lock(&finalized->mutex);
        finalized->done = true;
        g_cond_signal(&finalized->cond);
        g_mutex_unlock(&finalized->mutex);
    });
    gst_object_unref(pipeline);
    const gint64 deadline = g_get_monotonic_time() + 30 * G_TIME_SPAN_SECOND;
    g_mutex_lock(&f->mutex);
    while (!f->done && g_cond_wait_until(&f->cond, &f->mutex, deadline)) {
    }
    const bool done = f->done;
    g_mutex_unlock(&f->mutex);
    if (done) {  // else the notification may still come: `f` stays
        g_mutex_clear(&f->mutex);
        g_cond_clear(&f->cond);
        delete f;
    }
    return done;
}

/// Runs `line` to its end (EOS, an error, or 60 s without a buffer), collecting appsink's buffers
/// and the bus's warnings and errors.
RunResult runLine(const std::string& line) {
    RunResult r;
    GError* error = nullptr;
    GstElement* pipeline = gst_parse_launch(line.c_str(), &error);
    if (!pipeline || error) {
        r.messages = std::string("parse: ") + (error ? error->message : "?");
        g_clear_error(&error);
        if (pipeline) gst_object_unref(pipeline);
        return r;
    }
    GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    GstBus* bus = gst_element_get_bus(pipeline);
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    bool failed = false;
    std::vector<GstSample*> samples;
    auto drainBus = [&] {
        while (GstMessage* m = gst_bus_pop_filtered(bus, static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))) {
            GError* e = nullptr;
            gchar* debug = nullptr;
            failed = failed || GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR;
            if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) gst_message_parse_error(m, &e, &debug);
            else gst_message_parse_warning(m, &e, &debug);
            r.messages += std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(m))) + ": " + e->message + " (" + (debug ? debug : "") + ")\n";
            g_clear_error(&e);
            g_free(debug);
            gst_message_unref(m);
        }
    };
    while (!failed && !gst_app_sink_is_eos(GST_APP_SINK(sink))) {
        drainBus();
        GstSample* sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), GST_SECOND / 10);
        if (!sample) {
            if (!gst_app_sink_is_eos(GST_APP_SINK(sink)) && ++r.idlePolls > 600) {
                r.messages += "no buffer for 60 s\n";
                failed = true;
            }
            continue;
        }
        samples.push_back(sample);
        r.idlePolls = 0;
    }
    drainBus();
    // Mapped once the stream has ended: a map can make GstGL download the frame then, in its
    // context, and that must not fall between the state the line leaves and the element's work.
    // A frame's pixels only: the bytes that pad its rows are whatever the download left there.
    for (GstSample* sample : samples) {
        GstVideoInfo info;
        GstVideoFrame frame;
        if (gst_video_info_from_caps(&info, gst_sample_get_caps(sample)) &&
            gst_video_frame_map(&frame, &info, gst_sample_get_buffer(sample), GST_MAP_READ)) {
            const auto* data = static_cast<const guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0));
            const int rowBytes = GST_VIDEO_FRAME_COMP_WIDTH(&frame, 0) * GST_VIDEO_FRAME_COMP_PSTRIDE(&frame, 0);
            for (int y = 0; y < GST_VIDEO_FRAME_HEIGHT(&frame); ++y) {
                const guint8* row = data + y * GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0);
                r.bytes.insert(r.bytes.end(), row, row + rowBytes);
            }
            gst_video_frame_unmap(&frame);
        }
        gst_sample_unref(sample);
        ++r.frames;
    }
    gst_object_unref(bus);
    auto stringProperty = [&](const char* element, const char* property) {
        std::string value;
        if (GstElement* e = gst_bin_get_by_name(GST_BIN(pipeline), element)) {
            gchar* text = nullptr;
            g_object_get(e, property, &text, nullptr);
            value = text ? text : "";
            g_free(text);
            gst_object_unref(e);
        }
        return value;
    };
    r.backend = stringProperty("under_test", "active-backend");
    r.mismatch = stringProperty("check", "mismatch");
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(sink);
    if (!unrefAndAwaitFinalize(pipeline)) r.messages += "the pipeline was not finalized within 30 s of the test's last unref\n";
    return r;
}

class GlState : public ::testing::TestWithParam<GlCase> {};

TEST_P(GlState, ElementIgnoresAndKeepsTheContextsPixelStore) {
    test::requirePlugin();
    GstElementFactory* upload = gst_element_factory_find("glupload");
    if (!upload) GTEST_SKIP() << "no glupload: GstGL's plugin (STRIATE_GST_PLUGINS) did not load";
    gst_object_unref(upload);
    const GlCase& c = GetParam();
    auto line = [&](const char* before, const char* after) {
        return std::string("striatesrc num-buffers=3 is-live=false scene=photo seed=3 ! video/x-raw,format=") + c.in +
               ",width=97,height=63 ! glupload ! " + before + c.element + " name=under_test ! " +
               "video/x-raw(memory:GLMemory),format=" + c.out + " ! " + after + "gldownload ! appsink name=sink sync=false";
    };
    test::BackendDecisions decisions;
    const RunResult clean = runLine(line("", ""));
    ASSERT_EQ(clean.messages, "");
    EXPECT_EQ(decisions.count(), 1) << "the backend is decided once per caps, in GL memory too";
    ASSERT_EQ(clean.backend, "gles-fragment") << "the element did not run in GstGL's context";
    ASSERT_EQ(clean.frames, 3);
    const RunResult messy = runLine(line("striateglstate ! ", "striateglstate name=check check=true ! "));
    EXPECT_EQ(messy.messages, "") << "a warning means a GL error sent a frame to the cpu";
    EXPECT_EQ(messy.backend, "gles-fragment");
    EXPECT_EQ(messy.mismatch, "") << "the element did not put back the pixel-store state it found";
    EXPECT_EQ(messy.frames, 3);
    EXPECT_TRUE(messy.bytes == clean.bytes) << "the output differs from the same line's in a clean context";
}

INSTANTIATE_TEST_SUITE_P(
    EveryElement, GlState,
    ::testing::Values(GlCase{"striateblur sigma=2", "GRAY8", "GRAY8"},
                      GlCase{"striategabor orientations=4", "GRAY8", "GRAY8"},
                      GlCase{"striateedges sigma=2", "GRAY8", "GRAY8"},
                      GlCase{"striateedges sigma=2", "NV12", "GRAY8"},
                      GlCase{"striateedges output=strength", "GRAY8", "GRAY16_LE"},
                      GlCase{"striateedges board=rpi3", "GRAY8", "GRAY8"},
                      GlCase{"striatethreshold", "NV12", "GRAY8"},
                      GlCase{"striatechain chain=\"blur sigma=2 ! edges\"", "GRAY8", "GRAY8"}),
    caseName);

} // namespace
} // namespace striate
