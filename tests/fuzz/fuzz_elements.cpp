// libFuzzer target: the filter elements' caps and property values through GstHarness. An input is
// text: the stage (a filter element's name less "striate": blur, gabor, edges, threshold, chain, as
// the plugin registers them), the sink caps, property lines name=value set before the
// first frame, then "---" and property lines set while playing, before a second frame. Whatever
// the values, the element refuses them (a warning or an error) or filters; nothing crashes, and
// GLib reports no critical (a misused API) while the element has the input (the caps text itself
// may make GStreamer's parser complain).
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>

namespace {

bool strict = false;  // the element has the input: a critical is a bug
/// The plugin's filter elements by the name an input gives (every "striate..." element but the
/// source: one a stage, made from the stage tables, and striatechain), so a new stage is fuzzed
/// with no list to update here.
std::set<std::string> stages;

void quietLog(const gchar* domain, GLogLevelFlags level, const gchar* message, gpointer) {
    if ((level & G_LOG_LEVEL_ERROR) || (strict && (level & G_LOG_LEVEL_CRITICAL))) {
        std::fprintf(stderr, "%s: %s\n", domain ? domain : "", message);
        std::abort();
    }
}

/// Sets each "name=value" line on the element, as gst-launch-1.0 would (gst_util_set_object_arg).
/// A value GObject itself refuses before the element sees it (no such property, not writable, not
/// of the property's type, outside its range: NaN for a double) is left out: GLib 2.84 (Debian 13)
/// reports such a refusal as a critical, 2.74 as a warning, and either way it is the caller's.
void setProperties(GstElement* e, std::istringstream& lines) {
    for (std::string line; std::getline(lines, line) && line != "---";) {
        const auto eq = line.find('=');
        if (eq == std::string::npos || eq == 0) continue;
        const std::string name = line.substr(0, eq);
        if (name == "name" || name == "parent") continue;  // GstObject's own, not the element's
        GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(e), name.c_str());
        if (!spec || !(spec->flags & G_PARAM_WRITABLE) || (spec->flags & G_PARAM_CONSTRUCT_ONLY)) continue;
        GValue value = G_VALUE_INIT;
        g_value_init(&value, spec->value_type);
        if (gst_value_deserialize_with_pspec(&value, line.substr(eq + 1).c_str(), spec) &&
            !g_param_value_validate(spec, &value))
            g_object_set_property(G_OBJECT(e), name.c_str(), &value);
        g_value_unset(&value);
    }
}

/// A frame for the caps (bounded), or a 16-byte buffer where they describe none or a huge one.
GstBuffer* frameFor(GstCaps* caps) {
    GstVideoInfo info;
    gsize size = 16;
    if (gst_video_info_from_caps(&info, caps) && GST_VIDEO_INFO_SIZE(&info) <= (gsize(4) << 20)) size = GST_VIDEO_INFO_SIZE(&info);
    GstBuffer* b = gst_buffer_new_allocate(nullptr, size, nullptr);
    gst_buffer_memset(b, 0, 0x5a, size);
    return b;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    // The plugin of this build alone, in a private registry, scanned in this process.
    setenv("GST_PLUGIN_PATH", STRIATE_FUZZ_PLUGIN_DIR, 0);
    setenv("GST_PLUGIN_SYSTEM_PATH", "", 0);
    setenv("GST_REGISTRY", STRIATE_FUZZ_PLUGIN_DIR "/../fuzz-registry.bin", 0);
    setenv("GST_REGISTRY_FORK", "no", 0);
    gst_init(nullptr, nullptr);
    g_log_set_default_handler(quietLog, nullptr);
    for (const char* d : {"GLib", "GLib-GObject", "GStreamer", "GStreamer-Video", "GStreamer-Check"})
        g_log_set_handler(d, static_cast<GLogLevelFlags>(G_LOG_LEVEL_MASK | G_LOG_FLAG_FATAL), quietLog, nullptr);
    // Made once here, so that the plugin is loaded (and its coverage counters registered with
    // libFuzzer) before fuzzing starts.
    GList* features = gst_registry_get_feature_list_by_plugin(gst_registry_get(), "striate");
    for (GList* f = features; f; f = f->next) {
        const std::string name = gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(f->data));
        if (GST_IS_ELEMENT_FACTORY(f->data) && name.rfind("striate", 0) == 0 && name != "striatesrc")
            stages.insert(name.substr(7));
    }
    gst_plugin_feature_list_free(features);
    if (stages.size() < 2 || !stages.count("chain")) {
        std::fprintf(stderr, "fuzz_elements: the striate plugin's filter elements not found in %s\n", STRIATE_FUZZ_PLUGIN_DIR);
        std::abort();
    }
    for (const std::string& stage : stages) {
        GstElement* e = gst_element_factory_make(("striate" + stage).c_str(), nullptr);
        if (!e) {
            std::fprintf(stderr, "fuzz_elements: striate%s does not make an element\n", stage.c_str());
            std::abort();
        }
        gst_object_unref(e);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::istringstream lines(std::string(reinterpret_cast<const char*>(data), size));
    std::string stage, capsText;
    if (!std::getline(lines, stage) || !stages.count(stage)) return -1;
    if (!std::getline(lines, capsText)) return -1;
    GstCaps* caps = gst_caps_from_string(capsText.c_str());
    if (!caps) return 0;
    if (!gst_caps_is_fixed(caps)) {
        gst_caps_unref(caps);
        return 0;
    }
    strict = true;
    GstHarness* h = gst_harness_new(("striate" + stage).c_str());
    setProperties(h->element, lines);
    gst_harness_push_event(h, gst_event_new_stream_start("fuzz"));
    const bool accepted = gst_harness_push_event(h, gst_event_new_caps(caps));
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    gst_harness_push_event(h, gst_event_new_segment(&segment));
    if (accepted) {
        gst_harness_push(h, frameFor(caps));
        setProperties(h->element, lines);  // while playing
        gst_harness_push(h, frameFor(caps));
        while (GstBuffer* out = gst_harness_try_pull(h)) gst_buffer_unref(out);
    }
    gst_caps_unref(caps);
    gst_harness_teardown(h);
    strict = false;
    return 0;
}
