// The stage elements: striate<stage> for each kind of stage (striateblur ...), one GType
// each, whose properties are made from their stage's parameter table (core/params.h). Adding a
// stage's element is one entry of kStageElements.
#include "core/params.h"
#include "pipeline/elements.h"
#include "pipeline/enums.h"
#include "pipeline/filter.h"

namespace {

using namespace striate;

/// An element that runs one stage: its GType name, its metadata, and its stage by name.
struct StageElement {
    const char* factory;  ///< gst-launch-1.0's name
    const char* typeName;
    const char* stage;
    const char* longName;
    const char* classification;
    const char* description;
    /// Colour formats pass through with every plane filtered (striateblur); others output grey.
    bool keepsFormat;
};

constexpr StageElement kStageElements[] = {
    /**
     * SECTION:element-striateblur
     *
     * Gaussian blur of grey, YUV (every plane; chroma at half the sigma) or RGB (every colour
     * channel) video, or of the luma to GRAY8 / GRAY16_LE.
     *
     *     gst-launch-1.0 striatesrc ! video/x-raw,format=I420 ! striateblur sigma=8 ! videoconvert ! autovideosink
     */
    {"striateblur", "GstStriateBlur", "blur", "Striate Gaussian blur", "Filter/Effect/Video",
     "Gaussian blur: direct, repeated boxes or recursive (constant time)", true},
    /**
     * SECTION:element-striategabor
     *
     * Gabor filtering of the luma: one orientation (magnitude, real, imaginary or phase) or the
     * maximum magnitude over a bank of orientations, as GRAY8 or GRAY16_LE.
     *
     *     gst-launch-1.0 striatesrc scene=grating ! striategabor orientations=6 gain=4 ! videoconvert ! autovideosink
     */
    {"striategabor", "GstStriateGabor", "gabor", "Striate Gabor filter", "Filter/Analyzer/Video",
     "Recursive or direct Gabor filter, single orientation or bank, on the luma", false},
    /**
     * SECTION:element-striateedges
     *
     * Edge detection on the luma (Canny, or Gabor energy), as GRAY8 or GRAY16_LE.
     *
     *     gst-launch-1.0 striatesrc ! video/x-raw,format=NV12,width=1280,height=720 ! striateedges ! videoconvert ! autovideosink
     */
    {"striateedges", "GstStriateEdges", "edges", "Striate edge detection", "Filter/Analyzer/Video",
     "Canny or Gabor-energy edges of the luma", false},
    /**
     * SECTION:element-striatethreshold
     *
     * Adaptive threshold of the luma (OpenCV's adaptiveThreshold, Gaussian, THRESH_BINARY): 255
     * where a pixel exceeds its local Gaussian mean less the offset, else 0.
     *
     *     gst-launch-1.0 striatesrc scene=text ! striatethreshold sigma=4 offset=0.02 ! videoconvert ! autovideosink
     */
    {"striatethreshold", "GstStriateThreshold", "threshold", "Striate adaptive threshold", "Filter/Analyzer/Video",
     "Binarisation against the local Gaussian mean less an offset", false},
};

struct GstStriateStage {
    GstStriateFilter parent;
};
struct GstStriateStageClass {
    GstStriateFilterClass parent_class;
    const StageInfo* stage;
};

const StageInfo& stageOf(gpointer instance) {
    return *reinterpret_cast<GstStriateStageClass*>(G_OBJECT_GET_CLASS(instance))->stage;
}

/// Property id k + 1 is the stage's parameter k.
const ParamDef* paramOf(GObject* object, guint id) {
    const StageInfo& stage = stageOf(object);
    return id >= 1 && id <= stage.params.size() ? &stage.params[id - 1] : nullptr;
}

void setProperty(GObject* object, guint id, const GValue* value, GParamSpec* pspec) {
    const ParamDef* p = paramOf(object, id);
    if (!p) {
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
        return;
    }
    double v = 0;
    switch (p->type) {
    case ParamDef::Type::Number:
        v = g_value_get_double(value);
        if (!gst::finiteOrWarn(object, pspec, v)) return;
        break;
    case ParamDef::Type::Integer: v = g_value_get_int(value); break;
    case ParamDef::Type::Boolean: v = g_value_get_boolean(value); break;
    case ParamDef::Type::Enum: v = g_value_get_enum(value); break;
    }
    gst::editChain(GST_STRIATE_FILTER(object), [&](Chain& chain) { p->set(chain.stages.front(), v); });
}

void getProperty(GObject* object, guint id, GValue* value, GParamSpec* pspec) {
    const ParamDef* p = paramOf(object, id);
    if (!p) {
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
        return;
    }
    const double v = p->get(gst::currentChain(GST_STRIATE_FILTER(object)).stages.front());
    switch (p->type) {
    case ParamDef::Type::Number: g_value_set_double(value, v); break;
    case ParamDef::Type::Integer: g_value_set_int(value, static_cast<int>(v)); break;
    case ParamDef::Type::Boolean: g_value_set_boolean(value, v != 0); break;
    case ParamDef::Type::Enum: g_value_set_enum(value, static_cast<int>(v)); break;
    }
}

GParamSpec* paramSpec(const ParamDef& p, const Stage& defaults) {
    const double d = p.get(defaults);
    const GParamFlags flags = p.playing ? gst::playingFlags()
                                        : static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                                                   GST_PARAM_MUTABLE_READY);
    switch (p.type) {
    case ParamDef::Type::Number: return g_param_spec_double(p.name, p.title, p.blurb, p.min, p.max, d, flags);
    case ParamDef::Type::Integer:
        return g_param_spec_int(p.name, p.title, p.blurb, static_cast<int>(p.min), static_cast<int>(p.max),
                                static_cast<int>(d), flags);
    case ParamDef::Type::Boolean: return g_param_spec_boolean(p.name, p.title, p.blurb, d != 0, flags);
    case ParamDef::Type::Enum:
        return g_param_spec_enum(p.name, p.title, p.blurb, gst_striate_enum_get_type(*p.values), static_cast<int>(d),
                                 flags);
    }
    return nullptr;
}

void classInit(gpointer klass, gpointer data) {
    const auto* element = static_cast<const StageElement*>(data);
    const StageInfo& stage = *findStage(element->stage);
    static_cast<GstStriateStageClass*>(klass)->stage = &stage;
    auto* gobject = G_OBJECT_CLASS(klass);
    gobject->set_property = setProperty;
    gobject->get_property = getProperty;
    for (std::size_t k = 0; k < stage.params.size(); ++k) {
        const ParamDef& p = stage.params[k];
        g_object_class_install_property(gobject, static_cast<guint>(k + 1), paramSpec(p, stage.defaults));
        if (p.type == ParamDef::Type::Enum)
            gst_type_mark_as_plugin_api(gst_striate_enum_get_type(*p.values), static_cast<GstPluginAPIFlags>(0));
    }
    auto* e = GST_ELEMENT_CLASS(klass);
    gst_element_class_set_static_metadata(e, element->longName, element->classification, element->description,
                                          "Striate developers");
    gst::addPadTemplates(e, element->keepsFormat);
    GST_STRIATE_FILTER_CLASS(klass)->keeps_format = element->keepsFormat;
}

void instanceInit(GTypeInstance* instance, gpointer klass) {
    const StageInfo& stage = *static_cast<GstStriateStageClass*>(klass)->stage;
    gst::setInitialChain(reinterpret_cast<GstStriateFilter*>(instance), Chain{{stage.defaults}});
}

GType registerStageElement(const StageElement& element) {
    if (GType type = g_type_from_name(element.typeName)) return type;
    const GTypeInfo info = {sizeof(GstStriateStageClass), nullptr, nullptr, classInit, nullptr, &element,
                            sizeof(GstStriateStage), 0, instanceInit, nullptr};
    return g_type_register_static(GST_TYPE_STRIATE_FILTER, element.typeName, &info, static_cast<GTypeFlags>(0));
}

} // namespace

namespace striate::gst {

bool registerStageElements(GstPlugin* plugin) {
    for (const StageElement& element : kStageElements)
        if (!gst_element_register(plugin, element.factory, GST_RANK_NONE, registerStageElement(element))) return false;
    return true;
}

} // namespace striate::gst
