#include "pipeline/filter.h"

#include <gst/video/video.h>

#include <string>
#include <string_view>

#include "board/backend_choice.h"
#include "board/profile.h"
#include "pipeline/enums.h"
#include "pipeline/filter_state.h"
#include "pipeline/formats.h"

GST_DEBUG_CATEGORY(gst_striate_filter_debug);
#define GST_CAT_DEFAULT gst_striate_filter_debug


using striate::gst::FilterState;

struct GstStriateFilterPrivate {
    FilterState* state;
};

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE(GstStriateFilter, gst_striate_filter, GST_TYPE_VIDEO_FILTER)

namespace {

using namespace striate;
using namespace striate::gst;

enum { PROP_0, PROP_BACKEND, PROP_BOARD, PROP_ACTIVE_BACKEND };

GstCaps* transformCaps(GstBaseTransform* t, GstPadDirection direction, GstCaps* caps, GstCaps* filter) {
#ifdef STRIATE_HAVE_GSTGL
    const bool glChain = true;
#else
    const bool glChain = false;
#endif
    GstCaps* result = gst::transformCaps(keepsFormat(t), glChain, direction, caps, filter);
    GST_DEBUG_OBJECT(t, "transformed %" GST_PTR_FORMAT " into %" GST_PTR_FORMAT, static_cast<void*>(caps), static_cast<void*>(result));
    return result;
}

/// striateblur keeps the input format when downstream accepts it (the templates list GRAY8 first).
GstCaps* fixateCaps(GstBaseTransform* t, GstPadDirection direction, GstCaps* caps, GstCaps* othercaps) {
    othercaps = gst_caps_make_writable(othercaps);
    if (direction == GST_PAD_SINK && keepsFormat(t) && !gst_caps_is_empty(othercaps)) {
        const char* in = gst_structure_get_string(gst_caps_get_structure(caps, 0), "format");
        othercaps = gst_caps_truncate(othercaps);
        if (in) gst_structure_fixate_field_string(gst_caps_get_structure(othercaps, 0), "format", in);
    }
    return GST_BASE_TRANSFORM_CLASS(gst_striate_filter_parent_class)->fixate_caps(t, direction, caps, othercaps);
}

gboolean setInfo(GstVideoFilter* vf, GstCaps* incaps, GstVideoInfo* in, GstCaps* outcaps, GstVideoInfo* out) {
    FilterState* s = stateOf(GST_STRIATE_FILTER(vf));
    s->in = *in;
    s->out = *out;
#ifdef STRIATE_HAVE_GSTGL
    s->glIn = gst::isGlMemory(incaps);
    s->glOut = gst::isGlMemory(outcaps);
#else
    (void)incaps;
    (void)outcaps;
#endif
    Status valid;
    BackendKind requested;
    BackendOptions options;
    Chain chain;
    {
        std::lock_guard lock(s->mutex);
        need(s, Pending::Caps);
        valid = settingsStatus(s);
        requested = s->gpuFailed ? BackendKind::Cpu : s->requested;
        s->requestChanged = false;
        options.board = s->board;
        chain = s->settings;
    }
    // Refused at caps time, before any frame (posted outside the lock: handlers read properties):
    // inconsistent settings, then a size or board no backend takes. The backend is decided here,
    // once for these caps (the choice validates the chain and frame as the backend it picks
    // would; a GPU backend's own limits fall back to cpu when the first frame makes it).
    if (!valid) {
        GST_ELEMENT_ERROR(vf, LIBRARY, SETTINGS, ("Inconsistent settings: %s", valid.message().c_str()), (nullptr));
        return FALSE;
    }
    return decideBackend(GST_STRIATE_FILTER(vf), requested, options, chain);
}

#ifdef STRIATE_HAVE_GSTGL
/// GL memory through the GstGL chain when it runs; otherwise the video filter maps the frames
/// (GstGL downloads and uploads) and transformFrame runs the backend.
GstFlowReturn transform(GstBaseTransform* t, GstBuffer* in, GstBuffer* out) {
    auto* f = GST_STRIATE_FILTER(t);
    FilterState* s = stateOf(f);
    if (!ensureConfigured(f)) return GST_FLOW_ERROR;
    if (s->gl.running()) {
        const Status st = s->gl.process(in, s->in, out, s->out, s->chain.encoding());
        if (st) return GST_FLOW_OK;
        if (!switchToCpu(f, st, (std::string(nickOf(kBackendKinds, BackendKind::GlesFragment)) + " in GstGL's context").c_str()))
            return GST_FLOW_ERROR;
    }
    return GST_BASE_TRANSFORM_CLASS(gst_striate_filter_parent_class)->transform(t, in, out);
}

/// GL memory out: a GstGL buffer pool of the chain's context (whatever backend runs).
gboolean decideAllocation(GstBaseTransform* t, GstQuery* query) {
    GstCaps* caps = nullptr;
    gst_query_parse_allocation(query, &caps, nullptr);
    if (gst::isGlMemory(caps)) return stateOf(GST_STRIATE_FILTER(t))->gl.decideAllocation(t, query);
    return GST_BASE_TRANSFORM_CLASS(gst_striate_filter_parent_class)->decide_allocation(t, query);
}

gboolean query(GstBaseTransform* t, GstPadDirection direction, GstQuery* q) {
    if (GST_QUERY_TYPE(q) == GST_QUERY_CONTEXT && stateOf(GST_STRIATE_FILTER(t))->gl.answerContextQuery(GST_ELEMENT(t), q))
        return TRUE;
    return GST_BASE_TRANSFORM_CLASS(gst_striate_filter_parent_class)->query(t, direction, q);
}

void setContext(GstElement* element, GstContext* context) {
    stateOf(GST_STRIATE_FILTER(element))->gl.setContext(element, context);
    GST_ELEMENT_CLASS(gst_striate_filter_parent_class)->set_context(element, context);
}
#endif

void setProperty(GObject* object, guint id, const GValue* value, GParamSpec* pspec) {
    FilterState* s = stateOf(GST_STRIATE_FILTER(object));
    switch (id) {
    case PROP_BACKEND: {
        std::lock_guard lock(s->mutex);
        s->requested = static_cast<BackendKind>(g_value_get_enum(value));
        need(s, Pending::Backends);
        s->requestChanged = true;
        s->gpuFailed = false;
        break;
    }
    case PROP_BOARD: {
        const char* v = g_value_get_string(value);
        // The board sets the GPU's limits when the backend starts: NULL or READY only (as
        // documented), not a value that silently waits for the next start.
        if (GST_STATE(GST_ELEMENT(object)) > GST_STATE_READY) {
            g_warning("%s: refusing board '%s' in the %s state: the board changes in the NULL or READY state only; "
                      "the previous value stays",
                      GST_OBJECT_NAME(object), v ? v : "", gst_element_state_get_name(GST_STATE(GST_ELEMENT(object))));
            break;
        }
#ifdef STRIATE_HAVE_GLES
        if (v && *v && std::string_view(v) != "auto" && !findBoardProfile(v)) {
            g_warning("%s: refusing board '%s': not a board profile (%s); the previous value stays", GST_OBJECT_NAME(object),
                      v, boardNames().c_str());
            break;
        }
#endif
        std::lock_guard lock(s->mutex);
        s->board = v && *v ? v : "auto";
        need(s, Pending::Backends);
        s->requestChanged = true;
        s->gpuFailed = false;
        break;
    }
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

void getProperty(GObject* object, guint id, GValue* value, GParamSpec* pspec) {
    FilterState* s = stateOf(GST_STRIATE_FILTER(object));
    std::lock_guard lock(s->mutex);
    switch (id) {
    case PROP_BACKEND: g_value_set_enum(value, static_cast<gint>(s->requested)); break;
    case PROP_BOARD: g_value_set_string(value, s->board.c_str()); break;
    case PROP_ACTIVE_BACKEND: g_value_set_string(value, s->active.c_str()); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

gboolean stop(GstBaseTransform* t) {
    FilterState* s = stateOf(GST_STRIATE_FILTER(t));
    s->backend.reset();
    s->chroma.reset();
#ifdef STRIATE_HAVE_GSTGL
    s->gl.stop(true);
#endif
    s->choice.reset();
    std::lock_guard lock(s->mutex);
    need(s, Pending::Backends);
    return TRUE;
}

void finalize(GObject* object) {
    delete stateOf(GST_STRIATE_FILTER(object));
    G_OBJECT_CLASS(gst_striate_filter_parent_class)->finalize(object);
}

} // namespace

namespace striate::gst {

FilterState* stateOf(GstStriateFilter* f) {
    return static_cast<GstStriateFilterPrivate*>(gst_striate_filter_get_instance_private(f))->state;
}

Status settingsStatus(const FilterState* s) {
    if (!s->refused) return s->refused;
    // One stage (a stage element's): its message alone, as its properties name the values.
    if (s->settings.stages.size() == 1) return validateStage(s->settings.stages.front());
    return s->settings.validate();
}

} // namespace striate::gst

static void gst_striate_filter_class_init(GstStriateFilterClass* klass) {
    GST_DEBUG_CATEGORY_INIT(gst_striate_filter_debug, "striatefilter", 0, "striate filter base");
    auto* gobject = G_OBJECT_CLASS(klass);
    gobject->set_property = setProperty;
    gobject->get_property = getProperty;
    gobject->finalize = finalize;
    g_object_class_install_property(
        gobject, PROP_BACKEND,
        g_param_spec_enum("backend", "Backend",
                          "Where the filter runs: auto picks the best for the board; a GPU backend that "
                          "cannot run falls back to cpu with a warning",
                          gst_striate_backend_get_type(), static_cast<gint>(BackendKind::Auto),
                          static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                                   GST_PARAM_MUTABLE_PLAYING)));
#ifdef STRIATE_HAVE_GLES
    const std::string boards = boardNames();
#else
    const std::string boards = "auto (this build has no GLES: the cpu backend runs)";
#endif
    // The blurb must outlive the class: an interned copy.
    const char* blurb = g_intern_string(("Board profile that caps what the GPU backends use: " + boards +
                                         " (auto: STRIATE_BOARD, else the device-tree model, else host)")
                                            .c_str());
    g_object_class_install_property(
        gobject, PROP_BOARD,
        g_param_spec_string("board", "Board", blurb, "auto",
                            static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                                     GST_PARAM_MUTABLE_READY)));
    g_object_class_install_property(
        gobject, PROP_ACTIVE_BACKEND,
        g_param_spec_string("active-backend", "Active backend", "The backend that actually runs (none before the first frame)",
                            "none", static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
    auto* trans = GST_BASE_TRANSFORM_CLASS(klass);
    trans->transform_caps = transformCaps;
    trans->fixate_caps = fixateCaps;
    trans->stop = stop;
#ifdef STRIATE_HAVE_GSTGL
    trans->transform = transform;
    trans->decide_allocation = decideAllocation;
    trans->query = query;
    GST_ELEMENT_CLASS(klass)->set_context = setContext;
#endif
    auto* video = GST_VIDEO_FILTER_CLASS(klass);
    video->set_info = setInfo;
    video->transform_frame = transformFrame;
    gst_type_mark_as_plugin_api(gst_striate_backend_get_type(), static_cast<GstPluginAPIFlags>(0));
    gst_type_mark_as_plugin_api(GST_TYPE_STRIATE_FILTER, static_cast<GstPluginAPIFlags>(0));
}

static void gst_striate_filter_init(GstStriateFilter* f) {
    static_cast<GstStriateFilterPrivate*>(gst_striate_filter_get_instance_private(f))->state = new FilterState();
}

namespace striate::gst {

/// Pad templates of a filter subclass: every input format; grey (or, for striateblur, the input
/// format as well) out.
void addPadTemplates(GstElementClass* klass, bool keepsFormat) {
#ifdef STRIATE_HAVE_GSTGL
    const bool glOut = true;
#else
    const bool glOut = false;
#endif
    GstCaps* sink = gst_caps_from_string(templateCaps(true, true).c_str());
    GstCaps* src = gst_caps_from_string(templateCaps(keepsFormat, glOut).c_str());
    gst_element_class_add_pad_template(klass, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, sink));
    gst_element_class_add_pad_template(klass, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, src));
    gst_caps_unref(sink);
    gst_caps_unref(src);
}

void editChain(GstStriateFilter* filter, const std::function<void(Chain&)>& edit) {
    FilterState* s = stateOf(filter);
    std::lock_guard lock(s->mutex);
    edit(s->settings);
    s->refused = {};
    need(s, Pending::Values);
}

void refuseSettings(GstStriateFilter* filter, const Status& why) {
    FilterState* s = stateOf(filter);
    std::lock_guard lock(s->mutex);
    s->refused = why;
    need(s, Pending::Values);
}

Chain currentChain(GstStriateFilter* filter) {
    FilterState* s = stateOf(filter);
    std::lock_guard lock(s->mutex);
    return s->settings;
}

void setInitialChain(GstStriateFilter* filter, const Chain& chain) {
    FilterState* s = stateOf(filter);
    std::lock_guard lock(s->mutex);
    s->settings = chain;
}

} // namespace striate::gst
