#include "pipeline/formats.h"

#include <initializer_list>
#include <vector>

/// GstGL's caps feature (gst/gl/gstglmemory.h), spelled out for a build without GLES: GL memory
/// is then read through the ordinary GstMemory map, which GstGL implements.
#ifndef GST_CAPS_FEATURE_MEMORY_GL_MEMORY
#define GST_CAPS_FEATURE_MEMORY_GL_MEMORY "memory:GLMemory"
#endif

namespace striate::gst {
namespace {

bool is(GstVideoFormat f, FormatTraits::Kind kind) {
    const FormatTraits* t = traitsOf(f);
    return t && t->kind == kind;
}

/// The names of the table's formats that `keep` accepts, in its order.
template <class Keep>
std::vector<const char*> names(Keep keep) {
    std::vector<const char*> out;
    for (const FormatTraits& t : kFormats)
        if (keep(t)) out.push_back(t.name);
    return out;
}

std::vector<const char*> allFormats() {
    return names([](const FormatTraits&) { return true; });
}
std::vector<const char*> greyFormats() {
    return names([](const FormatTraits& t) { return t.kind == FormatTraits::Grey; });
}

GValue formatList(const std::vector<const char*>& formats) {
    GValue list = G_VALUE_INIT;
    g_value_init(&list, GST_TYPE_LIST);
    for (const char* f : formats) {
        GValue v = G_VALUE_INIT;
        g_value_init(&v, G_TYPE_STRING);
        g_value_set_string(&v, f);  // a copy: `same` points into the structure being rewritten
        gst_value_list_append_and_take_value(&list, &v);
    }
    return list;
}

/// `first`, then the grey outputs.
std::vector<const char*> firstThenGrey(const char* first) {
    std::vector<const char*> out{first};
    for (const char* g : greyFormats())
        if (std::string(g) != first) out.push_back(g);
    return out;
}

} // namespace

const FormatTraits* traitsOf(GstVideoFormat f) {
    for (const FormatTraits& t : kFormats)
        if (t.format == f) return &t;
    return nullptr;
}

bool isRgb(GstVideoFormat f) { return is(f, FormatTraits::Rgb); }
bool isPacked422(GstVideoFormat f) { return is(f, FormatTraits::Packed422); }
bool isPlanar420(GstVideoFormat f) { return is(f, FormatTraits::Planar420); }
bool passesThrough(GstVideoFormat f) { return isRgb(f) || isPacked422(f) || isPlanar420(f); }
bool lumaInPlace(GstVideoFormat f) { return f == GST_VIDEO_FORMAT_GRAY8 || isPlanar420(f); }

std::vector<ColourChannel> colourChannels(GstVideoFormat f) {
    if (isRgb(f)) return {{0, 0, 4, false}, {0, 1, 4, false}, {0, 2, 4, false}};  // in place, whatever their order
    if (f == GST_VIDEO_FORMAT_I420) return {{0, 0, 1, false}, {1, 0, 1, true}, {2, 0, 1, true}};
    if (isPlanar420(f)) return {{0, 0, 1, false}, {1, 0, 2, true}, {1, 1, 2, true}};  // NV12, NV21: U and V interleaved
    return {};
}

std::string templateCaps(bool all, bool gl) {
    // Any size and rate GStreamer can describe; sizes a backend cannot take are refused at caps
    // time with an error naming the limit.
    const std::string ranges = ", width=" GST_VIDEO_SIZE_RANGE ", height=" GST_VIDEO_SIZE_RANGE
                               ", framerate=" GST_VIDEO_FPS_RANGE;
    std::string formats = "{ ";
    for (const char* f : all ? allFormats() : greyFormats()) formats += std::string(formats.size() > 2 ? ", " : "") + f;
    formats += " }";
    std::string c = "video/x-raw, format=" + formats + ranges;
    if (gl) c += "; video/x-raw(" GST_CAPS_FEATURE_MEMORY_GL_MEMORY "), format=" + formats + ranges;
    return c;
}

GstCaps* transformCaps(bool keepsFormat, bool glChain, GstPadDirection direction, GstCaps* caps,
                       GstCaps* filter) {
    GstCaps* result = gst_caps_new_empty();
    for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
        GstStructure* s = gst_structure_copy(gst_caps_get_structure(caps, i));
        GstCapsFeatures* features = gst_caps_get_features(caps, i);
        const bool gl = features && gst_caps_features_contains(features, GST_CAPS_FEATURE_MEMORY_GL_MEMORY);
        gst_structure_remove_fields(s, "colorimetry", "chroma-site", nullptr);
        auto addGl = [&](const std::vector<const char*>& formats) {
            GstStructure* g = gst_structure_copy(s);
            GValue list = formatList(formats);
            gst_structure_take_value(g, "format", &list);
            result = gst_caps_merge_structure_full(result, g, gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_GL_MEMORY, nullptr));
        };
        GValue formats = G_VALUE_INIT;
        if (direction == GST_PAD_SRC) {
            // Upstream may offer GL memory (glupload) in every input format; GL memory out needs
            // GL memory in.
            addGl(allFormats());
            if (gl) {
                gst_structure_free(s);
                continue;
            }
            formats = formatList(allFormats());
        } else {
            const char* same = gst_structure_get_string(s, "format");
            const bool fixedFormat = same && gst_structure_has_field_typed(s, "format", G_TYPE_STRING);
            const GstVideoFormat sameFormat = fixedFormat ? gst_video_format_from_string(same) : GST_VIDEO_FORMAT_UNKNOWN;
            if (gl && glChain) {
                // GL memory in: textures out first (grey, or striateblur's input format), so a
                // GstGL chain stays on the GPU. (Packed 4:2:2 passes through in system memory
                // only: its colour blur is the cpu's.)
                const bool glSame = fixedFormat && passesThrough(sameFormat) && !isPacked422(sameFormat);
                if (!keepsFormat || (fixedFormat && !glSame)) addGl(greyFormats());
                else if (glSame) addGl(firstThenGrey(same));
                else addGl(names([](const FormatTraits& t) { return t.kind != FormatTraits::Packed422; }));
            }
            // striateblur prefers to keep the input format: it comes first in the list.
            if (!keepsFormat || (fixedFormat && !passesThrough(sameFormat))) formats = formatList(greyFormats());
            else if (fixedFormat) formats = formatList(firstThenGrey(same));
            else formats = formatList(allFormats());
        }
        gst_structure_take_value(s, "format", &formats);
        gst_structure_remove_field(s, "texture-target");  // GstGL's field means nothing in system memory
        result = gst_caps_merge_structure(result, s);  // system memory: no caps features
    }
    if (filter) {
        GstCaps* both = gst_caps_intersect_full(filter, result, GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref(result);
        result = both;
    }
    return result;
}

} // namespace striate::gst
