// striateblur: Gaussian blur.
#include <cmath>

#include "pipeline/elements.h"
#include "pipeline/enums.h"
#include "pipeline/filter.h"

GST_DEBUG_CATEGORY_STATIC(gst_striate_blur_debug);
#define GST_CAT_DEFAULT gst_striate_blur_debug

struct GstStriateBlur {
    GstStriateFilter parent;
};
struct GstStriateBlurClass {
    GstStriateFilterClass parent_class;
};

G_DEFINE_TYPE(GstStriateBlur, gst_striate_blur, GST_TYPE_STRIATE_FILTER)

namespace {

using namespace striate;
enum { PROP_0, PROP_SIGMA, PROP_METHOD };

void setProperty(GObject* object, guint id, const GValue* value, GParamSpec* pspec) {
    switch (id) {
    case PROP_SIGMA: gst::setNumber(object, pspec, value, &BlurSpec::sigma); break;
    case PROP_METHOD:
        gst::editSpec<BlurSpec>(object, [&](BlurSpec& b) { b.method = static_cast<BlurMethod>(g_value_get_enum(value)); });
        break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

void getProperty(GObject* object, guint id, GValue* value, GParamSpec* pspec) {
    const auto b = gst::currentSpec<BlurSpec>(object);
    switch (id) {
    case PROP_SIGMA: g_value_set_double(value, b.sigma); break;
    case PROP_METHOD: g_value_set_enum(value, static_cast<gint>(b.method)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

} // namespace

static void gst_striate_blur_class_init(GstStriateBlurClass* klass) {
    GST_DEBUG_CATEGORY_INIT(gst_striate_blur_debug, "striateblur", 0, "striate Gaussian blur");
    auto* gobject = G_OBJECT_CLASS(klass);
    gobject->set_property = setProperty;
    gobject->get_property = getProperty;
    const BlurSpec d;
    g_object_class_install_property(
        gobject, PROP_SIGMA,
        g_param_spec_double("sigma", "Sigma", "Standard deviation of the Gaussian, in pixels", kMinSigma, kMaxSigma,
                            d.sigma, gst::playingFlags()));
    g_object_class_install_property(
        gobject, PROP_METHOD,
        g_param_spec_enum("method", "Method", "How the Gaussian is computed (method=recursive needs sigma >= 0.5)",
                          gst_striate_blur_method_get_type(), static_cast<gint>(d.method), gst::playingFlags()));
    auto* element = GST_ELEMENT_CLASS(klass);
    /**
     * SECTION:element-striateblur
     *
     * Gaussian blur of grey, YUV (every plane; chroma at half the sigma) or RGB (every colour
     * channel) video, or of the luma to GRAY8 / GRAY16_LE.
     *
     *     gst-launch-1.0 striatesrc ! video/x-raw,format=I420 ! striateblur sigma=8 ! videoconvert ! autovideosink
     */
    gst_element_class_set_static_metadata(
        element, "Striate Gaussian blur", "Filter/Effect/Video",
        "Gaussian blur: direct, repeated boxes or recursive (constant time)",
        "Striate developers");
    gst::addPadTemplates(element, true);
    GST_STRIATE_FILTER_CLASS(klass)->keeps_format = TRUE;
    gst_type_mark_as_plugin_api(gst_striate_blur_method_get_type(), static_cast<GstPluginAPIFlags>(0));
}

static void gst_striate_blur_init(GstStriateBlur* self) {
    gst::setInitialStage(GST_STRIATE_FILTER(self), BlurSpec{});
}
