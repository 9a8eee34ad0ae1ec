#pragma once

#include <gst/video/gstvideofilter.h>

#include <functional>

#include "core/chain.h"
#include "pipeline/elements.h"

G_BEGIN_DECLS

#define GST_TYPE_STRIATE_FILTER (gst_striate_filter_get_type())
G_DECLARE_DERIVABLE_TYPE(GstStriateFilter, gst_striate_filter, GST, STRIATE_FILTER, GstVideoFilter)

/// The base of the stage elements (striate<stage>, one per kind of stage: stage_elements.cpp) and
/// striatechain: caps, the backend property and its fallback, frame mapping, format conversion.
/// Each subclass owns its chain's properties.
struct _GstStriateFilterClass {
    GstVideoFilterClass parent_class;
    /// striateblur: colour formats pass through (every plane blurred); others output grey only.
    gboolean keeps_format;
};

G_END_DECLS

namespace striate::gst {

// The common properties (backend, board, active-backend) live on the base class; a subclass's
// set/get_property reach its chain (striatechain) or its one stage (stage_elements.cpp) through
// these.

/// Runs `edit` on the element's chain under the property lock. Each property's value is checked
/// alone (GLib's ranges, finiteOrWarn); the chain as a whole when it is used, at caps time and at
/// the next frame, so properties can be set in any order.
void editChain(GstStriateFilter* filter, const std::function<void(Chain&)>& edit);
/// Records settings that cannot be used as a whole (a chain string that does not parse): the
/// running chain stays, and `why` is reported where an inconsistent chain would be (an error
/// before the first frame or after new caps; one warning while playing) until the next edit.
void refuseSettings(GstStriateFilter* filter, const Status& why);
/// A copy of the element's chain, taken under the property lock.
Chain currentChain(GstStriateFilter* filter);
/// Sets the chain an element starts with (called from the subclass's instance init).
void setInitialChain(GstStriateFilter* filter, const Chain& chain);
/// Adds the sink and src pad templates of a filter element.
void addPadTemplates(GstElementClass* klass, bool keepsFormat);

} // namespace striate::gst
