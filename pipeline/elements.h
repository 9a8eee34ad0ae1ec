#pragma once

#include <gst/gst.h>

// The elements of the striate plugin.
GType gst_striate_chain_get_type();
GType gst_striate_src_get_type();

namespace striate::gst {

/// Registers the stage elements, striate<stage> for each kind of stage (stage_elements.cpp).
bool registerStageElements(GstPlugin* plugin);

/// Flags of a property that is safe to change while playing: the new value takes effect at the
/// next frame, under the property lock.
inline GParamFlags playingFlags() {
    return static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_CONTROLLABLE |
                                    GST_PARAM_MUTABLE_PLAYING);
}

/// A double property whose NaN GLib would let through: refused like an out-of-range value.
bool finiteOrWarn(GObject* object, const GParamSpec* pspec, double v);

} // namespace striate::gst
