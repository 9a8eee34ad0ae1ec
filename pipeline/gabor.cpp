// striategabor: Gabor filter or orientation bank.
#include "pipeline/elements.h"
#include "pipeline/enums.h"
#include "pipeline/filter.h"

GST_DEBUG_CATEGORY_STATIC(gst_striate_gabor_debug);
#define GST_CAT_DEFAULT gst_striate_gabor_debug

struct GstStriateGabor {
    GstStriateFilter parent;
};
struct GstStriateGaborClass {
    GstStriateFilterClass parent_class;
};

G_DEFINE_TYPE(GstStriateGabor, gst_striate_gabor, GST_TYPE_STRIATE_FILTER)

namespace {

using namespace striate;
enum { PROP_0, PROP_SIGMA, PROP_WAVELENGTH, PROP_ORIENTATION, PROP_ORIENTATIONS, PROP_OUTPUT, PROP_REMOVE_DC, PROP_GAIN, PROP_METHOD };

void setProperty(GObject* object, guint id, const GValue* value, GParamSpec* pspec) {
    auto edit = [&](auto change) { gst::editSpec<GaborSpec>(object, change); };
    switch (id) {
    case PROP_SIGMA: gst::setNumber(object, pspec, value, &GaborSpec::sigma); break;
    case PROP_WAVELENGTH: gst::setNumber(object, pspec, value, &GaborSpec::wavelength); break;
    case PROP_ORIENTATION: gst::setNumber(object, pspec, value, &GaborSpec::orientation); break;
    case PROP_GAIN: gst::setNumber(object, pspec, value, &GaborSpec::gain); break;
    case PROP_ORIENTATIONS: edit([&](GaborSpec& g) { g.orientations = g_value_get_int(value); }); break;
    case PROP_OUTPUT: edit([&](GaborSpec& g) { g.output = static_cast<GaborOutput>(g_value_get_enum(value)); }); break;
    case PROP_REMOVE_DC: edit([&](GaborSpec& g) { g.removeDc = g_value_get_boolean(value); }); break;
    case PROP_METHOD: edit([&](GaborSpec& g) { g.method = static_cast<GaborMethod>(g_value_get_enum(value)); }); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

void getProperty(GObject* object, guint id, GValue* value, GParamSpec* pspec) {
    const auto g = gst::currentSpec<GaborSpec>(object);
    switch (id) {
    case PROP_SIGMA: g_value_set_double(value, g.sigma); break;
    case PROP_WAVELENGTH: g_value_set_double(value, g.wavelength); break;
    case PROP_ORIENTATION: g_value_set_double(value, g.orientation); break;
    case PROP_GAIN: g_value_set_double(value, g.gain); break;
    case PROP_ORIENTATIONS: g_value_set_int(value, g.orientations); break;
    case PROP_OUTPUT: g_value_set_enum(value, static_cast<gint>(g.output)); break;
    case PROP_REMOVE_DC: g_value_set_boolean(value, g.removeDc); break;
    case PROP_METHOD: g_value_set_enum(value, static_cast<gint>(g.method)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

} // namespace

static void gst_striate_gabor_class_init(GstStriateGaborClass* klass) {
    GST_DEBUG_CATEGORY_INIT(gst_striate_gabor_debug, "striategabor", 0, "striate Gabor filter");
    auto* gobject = G_OBJECT_CLASS(klass);
    gobject->set_property = setProperty;
    gobject->get_property = getProperty;
    const GaborSpec d;
    const GParamFlags flags = gst::playingFlags();
    g_object_class_install_property(gobject, PROP_SIGMA,
        g_param_spec_double("sigma", "Sigma", "Standard deviation of the Gaussian envelope, in pixels", kMinSigma,
                            kMaxSigma, d.sigma, flags));
    g_object_class_install_property(gobject, PROP_WAVELENGTH,
        g_param_spec_double("wavelength", "Wavelength", "Wavelength of the carrier, in pixels", kMinWavelength,
                            kMaxWavelength, d.wavelength, flags));
    g_object_class_install_property(gobject, PROP_ORIENTATION,
        g_param_spec_double("orientation", "Orientation",
                            "Direction of the carrier in degrees, from +x toward +y (down)", -kMaxOrientationDegrees, kMaxOrientationDegrees,
                            d.orientation, flags));
    g_object_class_install_property(gobject, PROP_ORIENTATIONS,
        g_param_spec_int("orientations", "Orientations",
                         "Bank size: orientation + 180 k / N; above 1 the output is the maximum magnitude", 1,
                         kMaxOrientations, d.orientations, flags));
    g_object_class_install_property(gobject, PROP_OUTPUT,
        g_param_spec_enum("output", "Output", "What to output (a bank outputs the magnitude)",
                          gst_striate_gabor_output_get_type(), static_cast<gint>(d.output), flags));
    g_object_class_install_property(gobject, PROP_REMOVE_DC,
        g_param_spec_boolean("remove-dc", "Remove DC", "Subtract the filter's response to flat regions",
                             d.removeDc, flags));
    g_object_class_install_property(gobject, PROP_GAIN,
        g_param_spec_double("gain", "Gain", "Scale of the output before it is written", 0, kMaxGain, d.gain, flags));
    g_object_class_install_property(gobject, PROP_METHOD,
        g_param_spec_enum("method", "Method", "How the Gabor is computed (method=recursive needs sigma >= 0.5)",
                          gst_striate_gabor_method_get_type(), static_cast<gint>(d.method), flags));
    auto* element = GST_ELEMENT_CLASS(klass);
    /**
     * SECTION:element-striategabor
     *
     * Gabor filtering of the luma: one orientation (magnitude, real, imaginary or phase) or the
     * maximum magnitude over a bank of orientations, as GRAY8 or GRAY16_LE.
     *
     *     gst-launch-1.0 striatesrc scene=grating ! striategabor orientations=6 gain=4 ! videoconvert ! autovideosink
     */
    gst_element_class_set_static_metadata(
        element, "Striate Gabor filter", "Filter/Analyzer/Video",
        "Recursive or direct Gabor filter, single orientation or bank, on the luma",
        "Striate developers");
    gst::addPadTemplates(element, false);
    gst_type_mark_as_plugin_api(gst_striate_gabor_method_get_type(), static_cast<GstPluginAPIFlags>(0));
    gst_type_mark_as_plugin_api(gst_striate_gabor_output_get_type(), static_cast<GstPluginAPIFlags>(0));
}

static void gst_striate_gabor_init(GstStriateGabor* self) {
    gst::setInitialStage(GST_STRIATE_FILTER(self), GaborSpec{});
}
