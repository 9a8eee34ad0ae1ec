// striatechain: a whole chain string in one backend context, as `striate filter --chain` runs it.
#include "core/chain.h"
#include "pipeline/elements.h"
#include "pipeline/filter.h"

struct GstStriateChain {
    GstStriateFilter parent;
};
struct GstStriateChainClass {
    GstStriateFilterClass parent_class;
};

G_DEFINE_TYPE(GstStriateChain, gst_striate_chain, GST_TYPE_STRIATE_FILTER)

namespace {

using namespace striate;
enum { PROP_0, PROP_CHAIN };

/// The chain a new element runs: the main job's edge detection.
constexpr const char* kDefaultChain = "edges";

void setProperty(GObject* object, guint id, const GValue* value, GParamSpec* pspec) {
    if (id != PROP_CHAIN) {
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
        return;
    }
    const char* text = g_value_get_string(value);
    Chain chain;
    auto* filter = GST_STRIATE_FILTER(object);
    if (Status s = parseChain(text ? text : "", &chain); !s) gst::refuseSettings(filter, Status::error("chain: " + s.message()));
    else gst::editChain(filter, [&](Chain& c) { c = chain; });
}

void getProperty(GObject* object, guint id, GValue* value, GParamSpec* pspec) {
    if (id != PROP_CHAIN) {
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
        return;
    }
    g_value_set_string(value, formatChain(gst::currentChain(GST_STRIATE_FILTER(object))).c_str());
}

Chain defaultChain() {
    Chain chain;
    parseChain(kDefaultChain, &chain);
    return chain;
}

} // namespace

static void gst_striate_chain_class_init(GstStriateChainClass* klass) {
    auto* gobject = G_OBJECT_CLASS(klass);
    gobject->set_property = setProperty;
    gobject->get_property = getProperty;
    // The default as the property reads it back: every parameter spelled out. Interned: the
    // pspec keeps the pointer.
    const char* canonical = g_intern_string(formatChain(defaultChain()).c_str());
    g_object_class_install_property(
        gobject, PROP_CHAIN,
        g_param_spec_string("chain", "Chain",
                            "Stages separated by '!', as striate filter --chain takes them (\"blur sigma=2 ! gabor "
                            "sigma=4 orientations=6\"); reads back with every parameter spelled out. A chain that does "
                            "not parse is refused with its error and the previous one stays",
                            canonical, gst::playingFlags()));
    /**
     * SECTION:element-striatechain
     *
     * A whole chain of stages on the luma, in one backend context with no copy between stages,
     * exactly as `striate filter --chain` runs it, as GRAY8 or GRAY16_LE.
     *
     *     gst-launch-1.0 striatesrc ! striatechain chain="blur sigma=2 ! gabor sigma=4 orientations=6" ! videoconvert ! autovideosink
     */
    gst_element_class_set_static_metadata(GST_ELEMENT_CLASS(klass), "Striate chain", "Filter/Analyzer/Video",
                                          "A chain of stages in one backend context",
                                          "Striate developers");
    gst::addPadTemplates(GST_ELEMENT_CLASS(klass), false);
}

static void gst_striate_chain_init(GstStriateChain* self) {
    gst::setInitialChain(GST_STRIATE_FILTER(self), defaultChain());
}
