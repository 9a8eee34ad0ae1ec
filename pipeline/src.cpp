// striatesrc: a live synthetic camera (sensors/synthetic_camera.h) for demos and tests.
#include <dlfcn.h>
#include <gst/base/gstpushsrc.h>
#include <gst/video/video.h>

#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>

#include "pipeline/elements.h"
#include "pipeline/enums.h"
#include "cpu/neon/thread_pool.h"
#include "sensors/synthetic_camera.h"
#include "io/image_io.h"

GST_DEBUG_CATEGORY_STATIC(gst_striate_src_debug);
#define GST_CAT_DEFAULT gst_striate_src_debug

namespace striate::gst {

/// The C++ state behind striatesrc: properties under `mutex`, the rest on the streaming thread.
struct SrcState {
    std::mutex mutex;
    sensors::CameraSettings settings;
    std::string location;  // scene=photo: the photo's file
    GstVideoInfo info{};
    Image<std::uint8_t> photo;  // its luma, read on the streaming thread from `photoFrom`
    std::string photoFrom;
    std::uint64_t frame = 0;
    cpu::ThreadPool pool{cpu::defaultThreadCount()};  // renders bands of rows in parallel
};

} // namespace striate::gst

struct GstStriateSrc {
    GstPushSrc parent;
    striate::gst::SrcState* state;
};
struct GstStriateSrcClass {
    GstPushSrcClass parent_class;
};

G_DEFINE_TYPE(GstStriateSrc, gst_striate_src, GST_TYPE_PUSH_SRC)

namespace {

using namespace striate;
using sensors::Scene;

enum { PROP_0, PROP_SCENE, PROP_MOTION, PROP_NOISE, PROP_READ_NOISE, PROP_FULL_WELL, PROP_EXPOSURE, PROP_SEED, PROP_IS_LIVE,
       PROP_LOCATION };

/// The photo installed with Striate (tests/data/astronaut.png, public domain: tests/data/README.md),
/// found from where this plugin is: an installed or unpacked package's share/striate, else a build
/// tree's (share/striate beside lib/, a link to the sources' tests/data). No path of the machine
/// that built the plugin is in it.
std::string defaultPhoto() {
    Dl_info self{};
    if (!dladdr(reinterpret_cast<void*>(&defaultPhoto), &self) || !self.dli_fname) return "astronaut.png";
    const std::filesystem::path dir = std::filesystem::path(self.dli_fname).parent_path();
    std::error_code ec;
    for (const char* relative : {STRIATE_PHOTO_FROM_PLUGIN, "../share/striate/astronaut.png"})
        if (std::filesystem::exists(dir / relative, ec)) return std::filesystem::weakly_canonical(dir / relative, ec).string();
    return (dir / STRIATE_PHOTO_FROM_PLUGIN).lexically_normal().string();
}

GstStriateSrc* self(gpointer p) { return reinterpret_cast<GstStriateSrc*>(p); }

void setProperty(GObject* object, guint id, const GValue* value, GParamSpec* pspec) {
    gst::SrcState* s = self(object)->state;
    if (id == PROP_IS_LIVE) {
        gst_base_src_set_live(GST_BASE_SRC(object), g_value_get_boolean(value));
        return;
    }
    if (G_VALUE_HOLDS_DOUBLE(value) && !gst::finiteOrWarn(object, pspec, g_value_get_double(value))) return;
    std::lock_guard lock(s->mutex);
    auto& c = s->settings;
    switch (id) {
    case PROP_SCENE: c.scene = static_cast<Scene>(g_value_get_enum(value)); break;
    case PROP_MOTION: c.motion = g_value_get_boolean(value); break;
    case PROP_NOISE: c.noise.enabled = g_value_get_boolean(value); break;
    case PROP_READ_NOISE: c.noise.readNoise = g_value_get_double(value); break;
    case PROP_FULL_WELL: c.noise.fullWell = g_value_get_double(value); break;
    case PROP_EXPOSURE: c.noise.exposure = g_value_get_double(value); break;
    case PROP_SEED: c.seed = g_value_get_uint64(value); break;
    case PROP_LOCATION: {
        const gchar* l = g_value_get_string(value);
        s->location = l && *l ? l : defaultPhoto();
        break;
    }
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

void getProperty(GObject* object, guint id, GValue* value, GParamSpec* pspec) {
    gst::SrcState* s = self(object)->state;
    if (id == PROP_IS_LIVE) {
        g_value_set_boolean(value, gst_base_src_is_live(GST_BASE_SRC(object)));
        return;
    }
    std::lock_guard lock(s->mutex);
    const auto& c = s->settings;
    switch (id) {
    case PROP_SCENE: g_value_set_enum(value, static_cast<gint>(c.scene)); break;
    case PROP_MOTION: g_value_set_boolean(value, c.motion); break;
    case PROP_NOISE: g_value_set_boolean(value, c.noise.enabled); break;
    case PROP_READ_NOISE: g_value_set_double(value, c.noise.readNoise); break;
    case PROP_FULL_WELL: g_value_set_double(value, c.noise.fullWell); break;
    case PROP_EXPOSURE: g_value_set_double(value, c.noise.exposure); break;
    case PROP_SEED: g_value_set_uint64(value, c.seed); break;
    case PROP_LOCATION: g_value_set_string(value, s->location.c_str()); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

GstCaps* fixate(GstBaseSrc* src, GstCaps* caps) {
    caps = gst_caps_make_writable(caps);
    GstStructure* s = gst_caps_get_structure(caps, 0);
    gst_structure_fixate_field_nearest_int(s, "width", 640);
    gst_structure_fixate_field_nearest_int(s, "height", 480);
    gst_structure_fixate_field_nearest_fraction(s, "framerate", 30, 1);
    return GST_BASE_SRC_CLASS(gst_striate_src_parent_class)->fixate(src, caps);
}

gboolean setCaps(GstBaseSrc* src, GstCaps* caps) {
    GstVideoInfo info;
    if (!gst_video_info_from_caps(&info, caps)) return FALSE;
    if (GST_VIDEO_INFO_FPS_N(&info) <= 0) {
        GST_ELEMENT_ERROR(src, CORE, NEGOTIATION, ("striatesrc needs a positive framerate"), ("caps: %" GST_PTR_FORMAT, static_cast<void*>(caps)));
        return FALSE;
    }
    self(src)->state->info = info;
    gst_base_src_set_blocksize(src, static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)));
    return TRUE;
}

/// scene=photo: reads the photo when its file changed. False after posting an error naming it.
bool ensurePhoto(GstStriateSrc* src, Scene scene, const std::string& location) {
    gst::SrcState* s = src->state;
    if (scene != Scene::Photo || s->photoFrom == location) return true;
    Image<std::uint8_t> photo;
    if (Status st = io::readLuma(location, &photo); !st) {
        GST_ELEMENT_ERROR(src, RESOURCE, OPEN_READ, ("Cannot read the photo of scene=photo: %s", st.message().c_str()),
                          ("location: %s", location.c_str()));
        return false;
    }
    s->photo = std::move(photo);
    s->photoFrom = location;
    return true;
}

gboolean start(GstBaseSrc* src) {
    gst::SrcState* s = self(src)->state;
    s->frame = 0;
    Scene scene;
    std::string location;
    {
        std::lock_guard lock(s->mutex);
        scene = s->settings.scene;
        location = s->location;
    }
    return ensurePhoto(self(src), scene, location);  // a missing photo fails before the first frame
}

void getTimes(GstBaseSrc* src, GstBuffer* buffer, GstClockTime* start, GstClockTime* end) {
    // Live: the base class waits on the clock until each frame's time (a real camera's pace).
    *start = *end = GST_CLOCK_TIME_NONE;
    if (gst_base_src_is_live(src) && GST_BUFFER_PTS_IS_VALID(buffer)) {
        *start = GST_BUFFER_PTS(buffer);
        if (GST_BUFFER_DURATION_IS_VALID(buffer)) *end = *start + GST_BUFFER_DURATION(buffer);
    }
}

GstFlowReturn fill(GstPushSrc* push, GstBuffer* buffer) {
    gst::SrcState* s = self(push)->state;
    sensors::CameraSettings settings;
    std::string location;
    {
        std::lock_guard lock(s->mutex);
        settings = s->settings;
        location = s->location;
    }
    if (!ensurePhoto(self(push), settings.scene, location)) return GST_FLOW_ERROR;
    settings.photo = s->photo.view();
    GstVideoFrame frame;
    if (!gst_video_frame_map(&frame, &s->info, buffer, GST_MAP_WRITE)) {
        GST_ELEMENT_ERROR(push, RESOURCE, WRITE, ("Cannot map the output buffer"), (nullptr));
        return GST_FLOW_ERROR;
    }
    const int W = GST_VIDEO_FRAME_WIDTH(&frame), H = GST_VIDEO_FRAME_HEIGHT(&frame);
    const ImageView<std::uint8_t> luma(static_cast<std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0)), W, H,
                                       GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0));
    constexpr int kBand = 32;
    s->pool.parallelFor((H + kBand - 1) / kBand, [&](int band, int) {
        sensors::renderRows(settings, s->frame, luma, band * kBand, std::min(H, (band + 1) * kBand));
    });
    // A monochrome sensor: neutral chroma.
    for (guint p = 1; p < GST_VIDEO_FRAME_N_PLANES(&frame); ++p) {
        auto* data = static_cast<std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
        const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
        const int rows = GST_VIDEO_FRAME_COMP_HEIGHT(&frame, p);
        for (int y = 0; y < rows; ++y) std::memset(data + y * stride, 128, stride);
    }
    // Every byte that is no pixel is cleared too: row padding, the extra luma row GStreamer
    // allocates for odd heights, the tail. Buffers are a pure function of the settings.
    if (luma.stride > W)
        for (int y = 0; y < H; ++y) std::memset(luma.row(y) + W, 0, luma.stride - W);
    // Between and after the planes: only in one memory laid out by the frame's own info (a
    // downstream pool, GstGL's for one, may give each plane a memory of its own).
    if (gst_buffer_n_memory(buffer) == 1 && gst_buffer_get_size(buffer) >= GST_VIDEO_INFO_SIZE(&frame.info)) {
        auto* base = static_cast<std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0)) - GST_VIDEO_INFO_PLANE_OFFSET(&frame.info, 0);
        const guint planes = GST_VIDEO_FRAME_N_PLANES(&frame);
        for (guint p = 0; p < planes; ++p) {
            const gsize end = GST_VIDEO_INFO_PLANE_OFFSET(&frame.info, p) +
                              gsize(GST_VIDEO_FRAME_COMP_HEIGHT(&frame, p)) * GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
            const gsize next = p + 1 < planes ? GST_VIDEO_INFO_PLANE_OFFSET(&frame.info, p + 1) : GST_VIDEO_INFO_SIZE(&frame.info);
            if (next > end) std::memset(base + end, 0, next - end);
        }
    }
    gst_video_frame_unmap(&frame);
    const int fpsN = GST_VIDEO_INFO_FPS_N(&s->info), fpsD = GST_VIDEO_INFO_FPS_D(&s->info);
    GST_BUFFER_PTS(buffer) = gst_util_uint64_scale(s->frame, fpsD * GST_SECOND, fpsN);
    GST_BUFFER_DURATION(buffer) = gst_util_uint64_scale(s->frame + 1, fpsD * GST_SECOND, fpsN) - GST_BUFFER_PTS(buffer);
    GST_BUFFER_OFFSET(buffer) = s->frame;
    GST_BUFFER_OFFSET_END(buffer) = s->frame + 1;
    ++s->frame;
    return GST_FLOW_OK;
}

void finalize(GObject* object) {
    delete self(object)->state;
    G_OBJECT_CLASS(gst_striate_src_parent_class)->finalize(object);
}

} // namespace

static void gst_striate_src_class_init(GstStriateSrcClass* klass) {
    GST_DEBUG_CATEGORY_INIT(gst_striate_src_debug, "striatesrc", 0, "striate synthetic camera");
    auto* gobject = G_OBJECT_CLASS(klass);
    gobject->set_property = setProperty;
    gobject->get_property = getProperty;
    gobject->finalize = finalize;
    const sensors::CameraSettings d;
    const auto flags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
    g_object_class_install_property(gobject, PROP_SCENE,
        g_param_spec_enum("scene", "Scene", "What the camera sees", gst_striate_scene_get_type(),
                          static_cast<gint>(d.scene), flags));
    g_object_class_install_property(gobject, PROP_MOTION,
        g_param_spec_boolean("motion", "Motion", "Whether the scene moves from frame to frame", d.motion, flags));
    g_object_class_install_property(gobject, PROP_NOISE,
        g_param_spec_boolean("noise", "Noise", "Apply the sensor noise model (shot and read noise)", d.noise.enabled,
                             flags));
    g_object_class_install_property(gobject, PROP_READ_NOISE,
        g_param_spec_double("read-noise", "Read noise", "Read noise in electrons rms", 0, 1e6, d.noise.readNoise, flags));
    g_object_class_install_property(gobject, PROP_FULL_WELL,
        g_param_spec_double("full-well", "Full well", "Electrons at full scale (more: less shot noise)", 1, 1e9,
                            d.noise.fullWell, flags));
    g_object_class_install_property(gobject, PROP_EXPOSURE,
        g_param_spec_double("exposure", "Exposure", "Scale of the scene's radiance (saturates above 1)", 0, 100,
                            d.noise.exposure, flags));
    g_object_class_install_property(gobject, PROP_SEED,
        g_param_spec_uint64("seed", "Seed", "Noise seed: the same seed gives the same frames", 0, G_MAXUINT64, d.seed,
                            flags));
    g_object_class_install_property(gobject, PROP_IS_LIVE,
        g_param_spec_boolean("is-live", "Is live", "Deliver frames at the framerate, like a camera", TRUE,
                             static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)));
    g_object_class_install_property(gobject, PROP_LOCATION,
        g_param_spec_string("location", "Location",
                            "scene=photo: the photo (PNG, JPEG, PGM/PPM) the camera looks at; default the one installed "
                            "with Striate (public domain)",
                            defaultPhoto().c_str(), flags));
    auto* element = GST_ELEMENT_CLASS(klass);
    /**
     * SECTION:element-striatesrc
     *
     * A synthetic monochrome camera: moving scenes through a sensor noise model, deterministic
     * for a seed. scene=photo looks at a real photo (`location`), panning and zooming slowly.
     *
     *     gst-launch-1.0 striatesrc scene=siemens-star ! video/x-raw,width=1280,height=720 ! videoconvert ! autovideosink
     *     gst-launch-1.0 striatesrc scene=photo ! video/x-raw,width=640,height=480 ! striateedges ! videoconvert ! autovideosink
     */
    gst_element_class_set_static_metadata(
        element, "Striate synthetic camera", "Source/Video",
        "Synthetic camera with scenes, motion and a sensor noise model",
        "Striate developers");
    GstCaps* caps = gst_caps_from_string(
        "video/x-raw, format={ GRAY8, NV12, I420 }, width=[1, 32768], height=[1, 32768], framerate=[1/1, 1000/1]");
    gst_element_class_add_pad_template(element, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
    gst_caps_unref(caps);
    auto* base = GST_BASE_SRC_CLASS(klass);
    base->fixate = fixate;
    base->set_caps = setCaps;
    base->start = start;
    base->get_times = getTimes;
    GST_PUSH_SRC_CLASS(klass)->fill = fill;
    gst_type_mark_as_plugin_api(gst_striate_scene_get_type(), static_cast<GstPluginAPIFlags>(0));
}

static void gst_striate_src_init(GstStriateSrc* src) {
    src->state = new striate::gst::SrcState();
    src->state->location = defaultPhoto();
    gst_base_src_set_format(GST_BASE_SRC(src), GST_FORMAT_TIME);
    gst_base_src_set_live(GST_BASE_SRC(src), TRUE);
}
