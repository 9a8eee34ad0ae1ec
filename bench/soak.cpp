// striate-soak: one filter element on one backend for many frames (striatesrc ! element !
// appsink, in this process), sampling the resident size and the GL objects alive, as CSV. A
// benchmark (bench/soak.sh runs every element and backend and writes the curves), not a test.
//
// GL objects are counted by interposition (tests/support/gl_accounting.h): this program links and
// exports the counting wrappers, so the plugin's calls (resolved through the global symbol scope)
// reach them first.
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/support/gl_accounting.h"

namespace {

long residentKb() {
    long pages = 0, resident = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        std::fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

} // namespace

int main(int argc, char** argv) {
    std::string element = "striateedges", backend = "cpu", size = "64x48";
    long frames = 100000, every = 1000;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "striate-soak: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--element") element = value();
        else if (a == "--backend") backend = value();
        else if (a == "--size") size = value();
        else if (a == "--frames") frames = std::atol(value().c_str());
        else if (a == "--every") every = std::atol(value().c_str());
        else {
            std::fprintf(stderr,
                         "usage: striate-soak [--element striateblur|striategabor|striateedges] [--backend B]\n"
                         "                    [--size WxH] [--frames N] [--every K]\n"
                         "CSV on stdout: frame, resident kB, GL objects alive, seconds\n");
            return a == "--help" ? 0 : 2;
        }
    }
    int width = 0, height = 0;
    if (std::sscanf(size.c_str(), "%dx%d", &width, &height) != 2 || width < 1 || height < 1 || frames < 1 || every < 1) {
        std::fprintf(stderr, "striate-soak: bad --size, --frames or --every\n");
        return 2;
    }
    gst_init(&argc, &argv);
    GstElement* src = gst_element_factory_make("striatesrc", nullptr);
    GstElement* filter = gst_element_factory_make(element.c_str(), nullptr);
    if (!src || !filter) {
        std::fprintf(stderr, "striate-soak: no striatesrc or %s (GST_PLUGIN_PATH=build/lib)\n", element.c_str());
        return 2;
    }
    gst_util_set_object_arg(G_OBJECT(filter), "backend", backend.c_str());
    g_object_set(src, "num-buffers", static_cast<gint>(frames), "is-live", FALSE, nullptr);  // as fast as it goes
    GstElement* sink = GST_ELEMENT(g_object_new(GST_TYPE_APP_SINK, "sync", FALSE, nullptr));
    GstElement* pipeline = gst_pipeline_new("soak");
    gst_bin_add_many(GST_BIN(pipeline), src, filter, sink, nullptr);
    GstCaps* caps = gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, "GRAY8", "width", G_TYPE_INT, width,
                                        "height", G_TYPE_INT, height, nullptr);
    const bool linked = gst_element_link_filtered(src, filter, caps) && gst_element_link(filter, sink);
    gst_caps_unref(caps);
    if (!linked || gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
        std::fprintf(stderr, "striate-soak: the pipeline does not start\n");
        return 1;
    }
    std::printf("frame,rss_kb,gl_objects,seconds\n");
    const auto t0 = std::chrono::steady_clock::now();
    long n = 0;
    while (GstSample* s = gst_app_sink_pull_sample(GST_APP_SINK(sink))) {
        gst_sample_unref(s);
        if (++n % every == 0 || n == 1)
            std::printf("%ld,%ld,%zu,%.2f\n", n, residentKb(), striate::testing::glAccount().liveObjects,
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    gchar* active = nullptr;
    g_object_get(filter, "active-backend", &active, nullptr);
    GstBus* bus = gst_element_get_bus(pipeline);
    GstMessage* error = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
    std::fprintf(stderr, "striate-soak: %s on %s (active %s): %ld frames%s\n", element.c_str(), backend.c_str(),
                 active ? active : "?", n, error ? ", ended by an error" : "");
    g_free(active);
    const int status = error || n != frames ? 1 : 0;
    if (error) gst_message_unref(error);
    gst_object_unref(bus);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
    return status;
}
