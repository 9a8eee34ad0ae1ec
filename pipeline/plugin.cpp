// The striate GStreamer plugin: the stage elements, striatechain and striatesrc.
#include <gst/gst.h>

#include <cmath>

#include "pipeline/elements.h"
#ifdef STRIATE_HAVE_GSTGL
#include "gles/egl_context.h"
#endif

namespace striate::gst {

bool finiteOrWarn(GObject* object, const GParamSpec* pspec, double v) {
    if (std::isfinite(v)) return true;
    g_warning("%s: refusing %s=%g: not a finite number; the previous value stays",
              GST_IS_OBJECT(object) ? GST_OBJECT_NAME(object) : "striate", pspec->name, v);
    return false;
}

} // namespace striate::gst

static gboolean plugin_init(GstPlugin* plugin) {
#ifdef STRIATE_HAVE_GSTGL
    // Before GstGL initialises a display whose context our elements may share: in it too, vc4
    // must report what its compiler did (a skipped draw is otherwise silent).
    striate::gles::askVc4ForStatistics();
#endif
    return striate::gst::registerStageElements(plugin) &&
           gst_element_register(plugin, "striatechain", GST_RANK_NONE, gst_striate_chain_get_type()) &&
           gst_element_register(plugin, "striatesrc", GST_RANK_NONE, gst_striate_src_get_type());
}

// License: LGPL-2.1-or-later (LICENSE), GStreamer's convention for plugins.
#define PACKAGE "striate"
GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, striate,
                  "Vision filters for camera boards: Gaussian blur, Gabor, edges, adaptive threshold, "
                  "a synthetic camera",
                  plugin_init, STRIATE_VERSION, "LGPL", "Striate", STRIATE_ORIGIN)
