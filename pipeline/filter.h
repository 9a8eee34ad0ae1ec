#pragma once

#include <gst/video/gstvideofilter.h>

#include <functional>

#include "core/spec.h"
#include "pipeline/elements.h"

G_BEGIN_DECLS

#define GST_TYPE_STRIATE_FILTER (gst_striate_filter_get_type())
G_DECLARE_DERIVABLE_TYPE(GstStriateFilter, gst_striate_filter, GST, STRIATE_FILTER, GstVideoFilter)

/// The base of striateblur, striategabor and striateedges: caps, the backend property and its
/// fallback, frame mapping, format conversion. Each subclass owns one stage's properties.
struct _GstStriateFilterClass {
    GstVideoFilterClass parent_class;
    /// striateblur: colour formats pass through (every plane blurred); others output grey only.
    gboolean keeps_format;
};

G_END_DECLS

namespace striate::gst {

// The common properties (backend, active-backend) live on the base class; a subclass's
// set/get_property reach its stage through these.

/// Runs `edit` on the element's stage under the property lock. Each property's value is checked
/// alone (GLib's ranges, finiteOrWarn); the stage as a whole when it is used, at caps time and at
/// the next frame, so properties can be set in any order.
void editStage(GstStriateFilter* filter, const std::function<void(Stage&)>& edit);
/// Adds the sink and src pad templates of a filter element.
void addPadTemplates(GstElementClass* klass, bool keepsFormat);
/// A copy of the element's stage, taken under the property lock.
Stage currentStage(GstStriateFilter* filter);

/// set_property helpers of the subclasses: change one field of the element's spec (of type Spec)
/// through editStage.
template <class Spec, class Change>
void editSpec(GObject* object, Change change) {
    editStage(GST_STRIATE_FILTER(object), [&](Stage& s) { change(std::get<Spec>(s)); });
}
template <class Spec>
void setNumber(GObject* object, const GParamSpec* pspec, const GValue* value, double Spec::*field) {
    const double v = g_value_get_double(value);
    if (finiteOrWarn(object, pspec, v)) editSpec<Spec>(object, [&](Spec& spec) { spec.*field = v; });
}
/// A copy of the element's spec, for get_property.
template <class Spec>
Spec currentSpec(GObject* object) {
    return std::get<Spec>(currentStage(GST_STRIATE_FILTER(object)));
}
/// Sets the stage an element starts with (called from the subclass's instance init).
void setInitialStage(GstStriateFilter* filter, const Stage& stage);

} // namespace striate::gst
