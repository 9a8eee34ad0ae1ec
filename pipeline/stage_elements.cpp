// The stage elements: striate<stage> for each kind of stage (striateblur ...), one GType
// each, whose metadata and properties are made from their stage's table (core/params.h,
// StageInfo::element and params). A new stage's table gives it its element.
#include <string>

#include "core/params.h"
#include "pipeline/elements.h"
#include "pipeline/enums.h"
#include "pipeline/filter.h"

namespace {

using namespace striate;

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
    const StageInfo& stage = *static_cast<const StageInfo*>(data);
    const StageInfo::Element& element = stage.element;
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
    gst_element_class_set_static_metadata(e, element.longName, element.classification, element.description,
                                          "Striate developers");
    gst::addPadTemplates(e, element.keepsFormat);
    GST_STRIATE_FILTER_CLASS(klass)->keeps_format = element.keepsFormat;
}

void instanceInit(GTypeInstance* instance, gpointer klass) {
    const StageInfo& stage = *static_cast<GstStriateStageClass*>(klass)->stage;
    gst::setInitialChain(reinterpret_cast<GstStriateFilter*>(instance), Chain{{stage.defaults}});
}

/// GstStriate<Name>: the stage's name with a capital.
std::string typeNameOf(const StageInfo& stage) {
    std::string name = std::string("GstStriate") + stage.name;
    name[10] = static_cast<char>(g_ascii_toupper(name[10]));
    return name;
}

GType registerStageElement(const StageInfo& stage) {
    const std::string typeName = typeNameOf(stage);
    if (GType type = g_type_from_name(typeName.c_str())) return type;
    const GTypeInfo info = {sizeof(GstStriateStageClass), nullptr, nullptr, classInit, nullptr, &stage,
                            sizeof(GstStriateStage), 0, instanceInit, nullptr};
    return g_type_register_static(GST_TYPE_STRIATE_FILTER, typeName.c_str(), &info, static_cast<GTypeFlags>(0));
}

} // namespace

namespace striate::gst {

bool registerStageElements(GstPlugin* plugin) {
    for (const StageInfo& stage : stageInfos())
        if (!gst_element_register(plugin, (std::string("striate") + stage.name).c_str(), GST_RANK_NONE,
                                  registerStageElement(stage)))
            return false;
    return true;
}

} // namespace striate::gst
