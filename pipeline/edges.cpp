// striateedges: live edge detection.
#include "pipeline/elements.h"
#include "pipeline/enums.h"
#include "pipeline/filter.h"

GST_DEBUG_CATEGORY_STATIC(gst_striate_edges_debug);
#define GST_CAT_DEFAULT gst_striate_edges_debug

struct GstStriateEdges {
    GstStriateFilter parent;
};
struct GstStriateEdgesClass {
    GstStriateFilterClass parent_class;
};

G_DEFINE_TYPE(GstStriateEdges, gst_striate_edges, GST_TYPE_STRIATE_FILTER)

namespace {

using namespace striate;
enum { PROP_0, PROP_METHOD, PROP_SIGMA, PROP_WAVELENGTH, PROP_ORIENTATIONS, PROP_LOW, PROP_HIGH, PROP_OUTPUT };

void setProperty(GObject* object, guint id, const GValue* value, GParamSpec* pspec) {
    auto edit = [&](auto change) { gst::editSpec<EdgeSpec>(object, change); };
    switch (id) {
    case PROP_SIGMA: gst::setNumber(object, pspec, value, &EdgeSpec::sigma); break;
    case PROP_WAVELENGTH: gst::setNumber(object, pspec, value, &EdgeSpec::wavelength); break;
    case PROP_LOW: gst::setNumber(object, pspec, value, &EdgeSpec::lowThreshold); break;
    case PROP_HIGH: gst::setNumber(object, pspec, value, &EdgeSpec::highThreshold); break;
    case PROP_ORIENTATIONS: edit([&](EdgeSpec& e) { e.orientations = g_value_get_int(value); }); break;
    case PROP_METHOD: edit([&](EdgeSpec& e) { e.method = static_cast<EdgeMethod>(g_value_get_enum(value)); }); break;
    case PROP_OUTPUT: edit([&](EdgeSpec& e) { e.output = static_cast<EdgeOutput>(g_value_get_enum(value)); }); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

void getProperty(GObject* object, guint id, GValue* value, GParamSpec* pspec) {
    const auto e = gst::currentSpec<EdgeSpec>(object);
    switch (id) {
    case PROP_SIGMA: g_value_set_double(value, e.sigma); break;
    case PROP_WAVELENGTH: g_value_set_double(value, e.wavelength); break;
    case PROP_LOW: g_value_set_double(value, e.lowThreshold); break;
    case PROP_HIGH: g_value_set_double(value, e.highThreshold); break;
    case PROP_ORIENTATIONS: g_value_set_int(value, e.orientations); break;
    case PROP_METHOD: g_value_set_enum(value, static_cast<gint>(e.method)); break;
    case PROP_OUTPUT: g_value_set_enum(value, static_cast<gint>(e.output)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

} // namespace

static void gst_striate_edges_class_init(GstStriateEdgesClass* klass) {
    GST_DEBUG_CATEGORY_INIT(gst_striate_edges_debug, "striateedges", 0, "striate edge detection");
    auto* gobject = G_OBJECT_CLASS(klass);
    gobject->set_property = setProperty;
    gobject->get_property = getProperty;
    const EdgeSpec d;
    const GParamFlags flags = gst::playingFlags();
    g_object_class_install_property(gobject, PROP_METHOD,
        g_param_spec_enum("method", "Method", "Canny, or the local energy of a Gabor bank (steps and lines)",
                          gst_striate_edge_method_get_type(), static_cast<gint>(d.method), flags));
    g_object_class_install_property(gobject, PROP_SIGMA,
        g_param_spec_double("sigma", "Sigma", "Smoothing (canny) or envelope (gabor) standard deviation, in pixels",
                            kMinSigma, kMaxSigma, d.sigma, flags));
    g_object_class_install_property(gobject, PROP_WAVELENGTH,
        g_param_spec_double("wavelength", "Wavelength", "Carrier wavelength of the gabor method, in pixels",
                            kMinWavelength, kMaxWavelength, d.wavelength, flags));
    g_object_class_install_property(gobject, PROP_ORIENTATIONS,
        g_param_spec_int("orientations", "Orientations", "Bank size of the gabor method", 1, kMaxOrientations,
                         d.orientations, flags));
    g_object_class_install_property(gobject, PROP_LOW,
        g_param_spec_double("low-threshold", "Low threshold",
                            "Weak edges: gradient of the unit image (canny) or Gabor energy; <= high-threshold", 0,
                            kMaxThreshold, d.lowThreshold, flags));
    g_object_class_install_property(gobject, PROP_HIGH,
        g_param_spec_double("high-threshold", "High threshold", "Strong edges (same units); >= low-threshold", 0,
                            kMaxThreshold, d.highThreshold, flags));
    g_object_class_install_property(gobject, PROP_OUTPUT,
        g_param_spec_enum("output", "Output", "Edge map, edge strength, or edges drawn over the luma",
                          gst_striate_edge_output_get_type(), static_cast<gint>(d.output), flags));
    auto* element = GST_ELEMENT_CLASS(klass);
    /**
     * SECTION:element-striateedges
     *
     * Edge detection on the luma (Canny, or Gabor energy), as GRAY8 or GRAY16_LE.
     *
     *     gst-launch-1.0 striatesrc ! video/x-raw,format=NV12,width=1280,height=720 ! striateedges ! videoconvert ! autovideosink
     */
    gst_element_class_set_static_metadata(
        element, "Striate edge detection", "Filter/Analyzer/Video",
        "Canny or Gabor-energy edges of the luma",
        "Striate developers");
    gst::addPadTemplates(element, false);
    gst_type_mark_as_plugin_api(gst_striate_edge_method_get_type(), static_cast<GstPluginAPIFlags>(0));
    gst_type_mark_as_plugin_api(gst_striate_edge_output_get_type(), static_cast<GstPluginAPIFlags>(0));
}

static void gst_striate_edges_init(GstStriateEdges* self) {
    gst::setInitialStage(GST_STRIATE_FILTER(self), EdgeSpec{});
}
