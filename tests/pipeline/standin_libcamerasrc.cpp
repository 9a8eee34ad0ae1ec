// A test-only stand-in for libcamera's `libcamerasrc` (gstreamer1.0-libcamera), registered under
// that name, so the main job's camera path runs here where no camera exists
// (tests/scripts/run_test.sh puts it on GST_PLUGIN_PATH; nothing installs it).
//
// It behaves as the real element does where Striate's scripts meet it (libcamera's
// src/gstreamer/gstlibcamerasrc.cpp, Debian's 0.0.3 and Raspberry Pi's current one):
//   - a plain GstElement, not a GstBaseSrc: no num-buffers, no is-live, no do-timestamp; its one
//     property is camera-name;
//   - one always "src" pad, driven by a task of its own that starts in PAUSED -> PLAYING;
//     READY -> PAUSED and PLAYING -> PAUSED answer NO_PREROLL (a live source);
//   - caps from what downstream accepts among its formats, fixated near 640x480, pushed with no
//     framerate field (0.0.3 has no frame-rate control); a stream-start, caps and a TIME segment
//     before the first buffer;
//   - buffers stamped with the pipeline clock's running time at capture, offset = sequence;
//   - a push that returns GST_FLOW_EOS makes it push an EOS event and end its task (how a
//     pipeline bounds it: `identity eos-after=N`); any other failure but flushing is an error.
// Frames come at 30 per second: NV12, a bright disc moving over a diagonal gradient.
#include <gst/gst.h>
#include <gst/video/video.h>

#include <cmath>
#include <cstring>

namespace {

constexpr int kFps = 30;

struct StandinCamera {
    GstElement parent;
    GstPad* src;
    gchar* cameraName;
    // Streaming-thread state.
    bool negotiated;
    guint64 sequence;
    GstVideoInfo info;
    // Under the object lock: the clock wait in progress, and whether the element is stopping.
    GstClockID wait;
    bool flushing;
};

struct StandinCameraClass {
    GstElementClass parent_class;
};

GType standin_camera_get_type();
G_DEFINE_TYPE(StandinCamera, standin_camera, GST_TYPE_ELEMENT)

enum { PROP_0, PROP_CAMERA_NAME };

GstStaticPadTemplate srcTemplate = GST_STATIC_PAD_TEMPLATE(
    "src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("video/x-raw, format=(string)NV12, width=(int)[ 32, 1920 ], height=(int)[ 32, 1080 ]"));

StandinCamera* self(gpointer p) { return reinterpret_cast<StandinCamera*>(p); }

/// stream-start, the caps downstream takes fixated near 640x480, a TIME segment.
bool negotiate(StandinCamera* s) {
    gst_pad_push_event(s->src, gst_event_new_stream_start("standin-libcamerasrc"));
    GstCaps* formats = gst_pad_get_pad_template_caps(s->src);
    GstCaps* caps = gst_pad_peer_query_caps(s->src, formats);
    gst_caps_unref(formats);
    if (gst_caps_is_empty(caps)) {
        gst_caps_unref(caps);
        return false;
    }
    caps = gst_caps_truncate(caps);
    caps = gst_caps_make_writable(caps);
    GstStructure* st = gst_caps_get_structure(caps, 0);
    gst_structure_fixate_field_nearest_int(st, "width", 640);
    gst_structure_fixate_field_nearest_int(st, "height", 480);
    gst_structure_remove_field(st, "framerate");
    caps = gst_caps_fixate(caps);
    const bool ok = gst_video_info_from_caps(&s->info, caps) && gst_pad_push_event(s->src, gst_event_new_caps(caps));
    gst_caps_unref(caps);
    if (!ok) return false;
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    return gst_pad_push_event(s->src, gst_event_new_segment(&segment));
}

/// Waits for the frame's capture time on the pipeline clock; false when the element stops.
bool waitForFrame(StandinCamera* s) {
    GstClock* clock = gst_element_get_clock(GST_ELEMENT(s));
    if (!clock) return true;
    const GstClockTime at = gst_element_get_base_time(GST_ELEMENT(s)) + s->sequence * GST_SECOND / kFps;
    GST_OBJECT_LOCK(s);
    if (s->flushing) {
        GST_OBJECT_UNLOCK(s);
        gst_object_unref(clock);
        return false;
    }
    s->wait = gst_clock_new_single_shot_id(clock, at);
    GST_OBJECT_UNLOCK(s);
    const GstClockReturn r = gst_clock_id_wait(s->wait, nullptr);
    GST_OBJECT_LOCK(s);
    gst_clock_id_unref(s->wait);
    s->wait = nullptr;
    GST_OBJECT_UNLOCK(s);
    gst_object_unref(clock);
    return r != GST_CLOCK_UNSCHEDULED;
}

GstBuffer* frame(StandinCamera* s) {
    const GstVideoInfo& info = s->info;
    GstBuffer* buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
    GstVideoFrame f;
    if (!gst_video_frame_map(&f, &info, buffer, GST_MAP_WRITE)) {
        gst_buffer_unref(buffer);
        return nullptr;
    }
    const int w = GST_VIDEO_INFO_WIDTH(&info), h = GST_VIDEO_INFO_HEIGHT(&info);
    const double t = static_cast<double>(s->sequence) / kFps;
    const double cx = w * (0.5 + 0.3 * std::cos(t)), cy = h * (0.5 + 0.3 * std::sin(t)), r = 0.15 * h;
    auto* y = static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&f, 0));
    const int ys = GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0);
    for (int j = 0; j < h; ++j)
        for (int i = 0; i < w; ++i) {
            const bool disc = (i - cx) * (i - cx) + (j - cy) * (j - cy) < r * r;
            y[j * ys + i] = disc ? 235 : static_cast<guint8>(32 + 96 * (i + j) / (w + h));
        }
    auto* uv = static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&f, 1));
    const int uvs = GST_VIDEO_FRAME_PLANE_STRIDE(&f, 1);
    for (int j = 0; j < (h + 1) / 2; ++j) std::memset(uv + j * uvs, 128, 2 * ((w + 1) / 2));
    gst_video_frame_unmap(&f);
    GstClock* clock = gst_element_get_clock(GST_ELEMENT(s));
    if (clock) {
        GST_BUFFER_PTS(buffer) = gst_clock_get_time(clock) - gst_element_get_base_time(GST_ELEMENT(s));
        gst_object_unref(clock);
    } else {
        GST_BUFFER_PTS(buffer) = 0;
    }
    GST_BUFFER_OFFSET(buffer) = GST_BUFFER_OFFSET_END(buffer) = s->sequence;
    return buffer;
}

void loop(gpointer data) {
    StandinCamera* s = self(data);
    GstFlowReturn ret = GST_FLOW_OK;
    if (!s->negotiated) {
        if (!negotiate(s)) ret = GST_FLOW_NOT_NEGOTIATED;
        s->negotiated = true;
    }
    if (ret == GST_FLOW_OK) {
        if (!waitForFrame(s)) ret = GST_FLOW_FLUSHING;
    }
    if (ret == GST_FLOW_OK) {
        GstBuffer* buffer = frame(s);
        ret = buffer ? gst_pad_push(s->src, buffer) : GST_FLOW_ERROR;
        ++s->sequence;
    }
    if (ret == GST_FLOW_OK) return;
    if (ret == GST_FLOW_EOS) gst_pad_push_event(s->src, gst_event_new_eos());
    else if (ret != GST_FLOW_FLUSHING) GST_ELEMENT_FLOW_ERROR(s, ret);
    gst_pad_pause_task(s->src);
}

GstStateChangeReturn changeState(GstElement* element, GstStateChange transition) {
    StandinCamera* s = self(element);
    if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
        GST_OBJECT_LOCK(s);
        s->flushing = true;
        if (s->wait) gst_clock_id_unschedule(s->wait);
        GST_OBJECT_UNLOCK(s);
    }
    GstStateChangeReturn ret = GST_ELEMENT_CLASS(standin_camera_parent_class)->change_state(element, transition);
    if (ret == GST_STATE_CHANGE_FAILURE) return ret;
    switch (transition) {
    case GST_STATE_CHANGE_READY_TO_PAUSED:
        s->negotiated = false;
        s->sequence = 0;
        GST_OBJECT_LOCK(s);
        s->flushing = false;
        GST_OBJECT_UNLOCK(s);
        return GST_STATE_CHANGE_NO_PREROLL;
    case GST_STATE_CHANGE_PAUSED_TO_PLAYING:
        if (!gst_pad_start_task(s->src, loop, s, nullptr)) return GST_STATE_CHANGE_FAILURE;
        break;
    case GST_STATE_CHANGE_PLAYING_TO_PAUSED: return GST_STATE_CHANGE_NO_PREROLL;
    case GST_STATE_CHANGE_PAUSED_TO_READY: gst_pad_stop_task(s->src); break;
    default: break;
    }
    return ret;
}

void setProperty(GObject* object, guint id, const GValue* value, GParamSpec* pspec) {
    if (id != PROP_CAMERA_NAME) {
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
        return;
    }
    GST_OBJECT_LOCK(object);
    g_free(self(object)->cameraName);
    self(object)->cameraName = g_value_dup_string(value);
    GST_OBJECT_UNLOCK(object);
}

void getProperty(GObject* object, guint id, GValue* value, GParamSpec* pspec) {
    if (id != PROP_CAMERA_NAME) {
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
        return;
    }
    GST_OBJECT_LOCK(object);
    g_value_set_string(value, self(object)->cameraName);
    GST_OBJECT_UNLOCK(object);
}

void finalize(GObject* object) {
    g_free(self(object)->cameraName);
    G_OBJECT_CLASS(standin_camera_parent_class)->finalize(object);
}

void standin_camera_class_init(StandinCameraClass* klass) {
    GObjectClass* object = G_OBJECT_CLASS(klass);
    GstElementClass* element = GST_ELEMENT_CLASS(klass);
    object->set_property = setProperty;
    object->get_property = getProperty;
    object->finalize = finalize;
    element->change_state = changeState;
    g_object_class_install_property(
        object, PROP_CAMERA_NAME,
        g_param_spec_string("camera-name", "Camera Name", "Select by name which camera to use.", nullptr,
                            static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)));
    gst_element_class_set_static_metadata(element, "libcamera Source (Striate's test stand-in)", "Source/Video",
                                          "Stands in for libcamerasrc in Striate's tests: no camera, no num-buffers",
                                          "Striate developers");
    gst_element_class_add_static_pad_template(element, &srcTemplate);
}

void standin_camera_init(StandinCamera* s) {
    s->src = gst_pad_new_from_static_template(&srcTemplate, "src");
    gst_element_add_pad(GST_ELEMENT(s), s->src);
}

} // namespace

static gboolean plugin_init(GstPlugin* plugin) {
    return gst_element_register(plugin, "libcamerasrc", GST_RANK_PRIMARY, standin_camera_get_type());
}

#define PACKAGE "striate-tests"
GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, standincamera,
                  "Test-only stand-in for libcamerasrc (Striate's tests)", plugin_init, "0.1", "LGPL", "Striate",
                  "Striate source tree")
