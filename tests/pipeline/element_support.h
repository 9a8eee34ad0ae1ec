// Shared by the element tests (test_elements.cpp, test_src.cpp): GStreamer set up once, the
// plugin from the build tree, caps to video info, and patterned frames.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <string_view>

namespace striate::test {

class GstEnvironment : public ::testing::Environment {
public:
    void SetUp() override { gst_init(nullptr, nullptr); }
};
inline const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new GstEnvironment);

/// Every test needs the plugin from the build tree (GST_PLUGIN_PATH, set by CTest).
inline void requirePlugin() {
    for (const char* name : {"striateblur", "striategabor", "striateedges", "striatesrc"}) {
        GstElementFactory* f = gst_element_factory_find(name);
        ASSERT_NE(f, nullptr) << name << " not found: is GST_PLUGIN_PATH the build tree's lib/?";
        gst_object_unref(f);
    }
}

inline GstVideoInfo infoOf(const std::string& caps) {
    GstCaps* c = gst_caps_from_string(caps.c_str());
    GstVideoInfo info;
    EXPECT_TRUE(gst_video_info_from_caps(&info, c));
    gst_caps_unref(c);
    return info;
}

/// Counts the filter elements' backend decisions while it lives: the "backend decided" lines the
/// striatefilter category logs at INFO, one per decision.
class BackendDecisions {
public:
    BackendDecisions() {
        gst_debug_set_active(TRUE);
        gst_debug_set_threshold_for_name("striatefilter", GST_LEVEL_INFO);
        // The function, not gstinfo.h's macro of the same name (it compares a function pointer with
        // a void pointer: clang's -Wpedantic).
        (gst_debug_add_log_function)(&BackendDecisions::log, this, nullptr);
    }
    ~BackendDecisions() {
        gst_debug_remove_log_function_by_data(this);
        gst_debug_unset_threshold_for_name("striatefilter");
    }
    BackendDecisions(const BackendDecisions&) = delete;
    BackendDecisions& operator=(const BackendDecisions&) = delete;
    int count() const { return count_; }

private:
    static void log(GstDebugCategory* category, GstDebugLevel level, const gchar*, const gchar*, gint, GObject*,
                    GstDebugMessage* message, gpointer self) {
        if (level == GST_LEVEL_INFO && std::string_view(gst_debug_category_get_name(category)) == "striatefilter" &&
            std::string_view(gst_debug_message_get(message)).find("backend decided") != std::string_view::npos)
            ++static_cast<BackendDecisions*>(self)->count_;
    }
    std::atomic<int> count_{0};
};

/// A frame whose every byte follows a pattern that differs per plane and position.
inline GstBuffer* patternFrame(const GstVideoInfo& info, unsigned seed) {
    GstBuffer* buf = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
    GstVideoFrame frame;
    gst_video_frame_map(&frame, const_cast<GstVideoInfo*>(&info), buf, GST_MAP_WRITE);
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame); ++p) {
        auto* d = static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
        const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
        const int rows = GST_VIDEO_FRAME_COMP_HEIGHT(&frame, p);
        for (int y = 0; y < rows; ++y)
            for (int x = 0; x < stride; ++x)
                d[y * stride + x] = static_cast<guint8>((x * 37 + y * 91 + p * 50 + seed * 13 + ((x / 5 + y / 3) % 2) * 90) & 255);
    }
    gst_video_frame_unmap(&frame);
    return buf;
}

} // namespace striate::test
