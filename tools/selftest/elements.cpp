#include "tools/selftest/elements.h"

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>

#include "board/backend_choice.h"
#include "core/chain.h"
#include "core/params.h"
#include "pipeline/formats.h"

namespace striate::selftest {
namespace {

/// The elements' 8-bit input formats, from their table (pipeline/formats.h), but packed 4:2:2:
/// striateblur resamples its chroma (blurPacked422), which expectedCodes does not model.
std::vector<std::string> inputFormats() {
    std::vector<std::string> formats;
    for (const gst::FormatTraits& t : gst::kFormats)
        if (t.kind != gst::FormatTraits::Packed422 && t.luma != gst::LumaSource::Gray16) formats.push_back(t.name);
    return formats;
}
/// The quick battery's formats on the GLES backends: one of each family.
const char* const kQuickGpuFormats[] = {"GRAY8", "NV12", "BGRx"};
/// A chain of two stages, which striatechain runs.
constexpr const char* kChainElementChain = "blur sigma=2 ! gabor sigma=4 wavelength=8 orientations=6";

/// Each stage element's first example chain (its properties have the same names), then
/// striatechain's chain.
std::vector<std::string> elementChains() {
    std::vector<std::string> chains;
    for (const StageInfo& stage : stageInfos()) chains.push_back(stage.examples.front());
    chains.push_back(kChainElementChain);
    return chains;
}

/// The element that runs `chain`: striate<stage> for one stage, else striatechain.
std::string elementOf(const std::string& chain) {
    if (chain.find('!') != std::string::npos) return "striatechain";
    return "striate" + chain.substr(0, chain.find(' '));
}

/// The element and its properties as gst-launch-1.0 spells them.
std::string launchLine(const std::string& chain) {
    return elementOf(chain) == "striatechain" ? "striatechain chain=\"" + chain + "\"" : "striate" + chain;
}
/// Odd in both directions: 4:2:0 chroma is rounded up, and no default stride equals the row.
constexpr int kWidth = 131, kHeight = 67;

struct ElementCase {
    std::string chain, in, out;  // out: striateblur keeps the input format; the others GRAY8
};

std::vector<ElementCase> elementCases(bool full, bool gpu) {
    std::vector<ElementCase> cases;
    for (const std::string& chain : elementChains()) {
        const bool blur = elementOf(chain) == "striateblur";
        std::vector<std::string> formats = inputFormats();
        if (gpu && !full) formats.assign(std::begin(kQuickGpuFormats), std::end(kQuickGpuFormats));
        for (const std::string& f : formats) cases.push_back({chain, f, blur ? f : "GRAY8"});
        cases.push_back({chain, "GRAY8", "GRAY16_LE"});
    }
    return cases;
}

/// An unusual layout of a frame: every plane's stride odd and beyond its row, the planes apart,
/// as a camera or a converter may hand over (carried by a GstVideoMeta).
GstVideoInfo oddLayout(GstVideoFormat format, int width, int height) {
    GstVideoInfo info;
    gst_video_info_set_format(&info, format, width, height);
    info.fps_n = 30;
    info.fps_d = 1;
    gsize offset = 0;
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
        guint c = 0;
        while (GST_VIDEO_INFO_COMP_PLANE(&info, c) != p) ++c;
        const int row = GST_VIDEO_INFO_COMP_WIDTH(&info, c) * GST_VIDEO_INFO_COMP_PSTRIDE(&info, c);
        info.stride[p] = (row | 1) + 6;
        info.offset[p] = offset;
        offset += gsize(info.stride[p]) * GST_VIDEO_INFO_COMP_HEIGHT(&info, c) + 11;
    }
    info.size = offset;
    return info;
}

/// One component of a mapped frame as a plane.
Image<std::uint8_t> component(const GstVideoFrame& frame, guint c) {
    Image<std::uint8_t> plane(GST_VIDEO_FRAME_COMP_WIDTH(&frame, c), GST_VIDEO_FRAME_COMP_HEIGHT(&frame, c));
    const auto* d = static_cast<const std::uint8_t*>(GST_VIDEO_FRAME_COMP_DATA(&frame, c));
    for (int y = 0; y < plane.height(); ++y)
        for (int x = 0; x < plane.width(); ++x)
            plane.at(x, y) = d[y * GST_VIDEO_FRAME_COMP_STRIDE(&frame, c) + x * GST_VIDEO_FRAME_COMP_PSTRIDE(&frame, c)];
    return plane;
}

/// The input frame in `layout`: the photo as luma (YUV, grey) or red, the other channels made
/// from it; the padding a stride mistake would read is 0xa5.
GstBuffer* makeFrame(GstVideoInfo layout, const Image<std::uint8_t>& photo) {
    GstBuffer* buf = gst_buffer_new_allocate(nullptr, layout.size, nullptr);
    gst_buffer_memset(buf, 0, 0xa5, layout.size);
    gst_buffer_add_video_meta_full(buf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&layout),
                                   GST_VIDEO_INFO_WIDTH(&layout), GST_VIDEO_INFO_HEIGHT(&layout),
                                   GST_VIDEO_INFO_N_PLANES(&layout), layout.offset, layout.stride);
    GstVideoFrame frame;
    gst_video_frame_map(&frame, &layout, buf, GST_MAP_WRITE);
    const bool rgb = GST_VIDEO_INFO_IS_RGB(&layout);
    const int w = photo.width(), h = photo.height();
    for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS(&frame); ++c) {
        auto* d = static_cast<std::uint8_t*>(GST_VIDEO_FRAME_COMP_DATA(&frame, c));
        for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT(&frame, c); ++y)
            for (int x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH(&frame, c); ++x) {
                int v;
                if (c == 0) v = photo.at(x, y);
                else if (rgb) v = c == 1 ? photo.at(std::min(x + 3, w - 1), y) : c == 2 ? 255 - photo.at(x, y) : x * 5 + y * 3;
                else v = photo.at(std::min(2 * x, w - 1), std::min(2 * y, h - 1)) / 2 + (c == 1 ? 3 * x : 5 * y);
                d[y * GST_VIDEO_FRAME_COMP_STRIDE(&frame, c) + x * GST_VIDEO_FRAME_COMP_PSTRIDE(&frame, c)] =
                    static_cast<std::uint8_t>(v & 255);
            }
    }
    gst_video_frame_unmap(&frame);
    return buf;
}

/// `chain` on `in` through a backend made as the elements make theirs, in 8- or 16-bit codes.
Status directCodes(const BackendMaker& make, BackendKind kind, const BackendOptions& options, const Chain& chain,
                   const Image<std::uint8_t>& in, bool sixteen, std::vector<int>* codes, std::string* fallback) {
    std::unique_ptr<Backend> b;
    if (Status s = make(kind, options, chain, FrameFormat{in.width(), in.height()}, &b, fallback); !s || !fallback->empty())
        return s;
    codes->clear();
    if (sixteen) {
        ChainOutput o;
        if (Status s = b->process(in.view(), &o); !s) return s;
        for (int y = 0; y < in.height(); ++y)
            for (int x = 0; x < in.width(); ++x) codes->push_back(encode16(o.real.at(x, y), chain.encoding()));
        return {};
    }
    Image<std::uint8_t> out(in.width(), in.height());
    if (Status s = b->process8(in.view(), Output8{out.data(), out.stride(), 1, chain.encoding()}); !s) return s;
    for (int y = 0; y < in.height(); ++y) codes->insert(codes->end(), out.row(y), out.row(y) + in.width());
    return {};
}

/// What the element must output, per output component: the luma's result (grey out), or each
/// channel blurred (striateblur keeping the format: 4:2:0 chroma on the cpu backend at half the
/// sigma, as the element runs it; alpha copied).
Status expectedCodes(const BackendMaker& make, BackendKind kind, const BackendOptions& options, const Chain& chain,
                     const GstVideoFrame& in, const ElementCase& c, std::vector<std::vector<int>>* expected,
                     std::string* fallback) {
    expected->clear();
    const bool rgb = GST_VIDEO_INFO_IS_RGB(&in.info);
    if (c.out != c.in || c.in == "GRAY8") {
        Image<std::uint8_t> luma = component(in, 0);
        if (rgb) {
            const Image<std::uint8_t> g = component(in, 1), b = component(in, 2);
            for (int y = 0; y < luma.height(); ++y)
                for (int x = 0; x < luma.width(); ++x) luma.at(x, y) = lumaOf(luma.at(x, y), g.at(x, y), b.at(x, y));
        }
        expected->emplace_back();
        return directCodes(make, kind, options, chain, luma, c.out == "GRAY16_LE", &expected->back(), fallback);
    }
    for (guint k = 0; k < GST_VIDEO_FRAME_N_COMPONENTS(&in); ++k) {
        const Image<std::uint8_t> plane = component(in, k);
        expected->emplace_back();
        if (rgb && k == 3) {
            for (int y = 0; y < plane.height(); ++y) expected->back().insert(expected->back().end(), plane.row(y), plane.row(y) + plane.width());
            continue;
        }
        const bool chroma = !rgb && k > 0;
        if (Status s = directCodes(make, chroma ? BackendKind::Cpu : kind, options, chroma ? chromaChain(chain) : chain,
                                   plane, false, &expected->back(), fallback);
            !s || !fallback->empty())
            return s;
    }
    return {};
}

/// The text of the first error on the pipeline's bus, or `otherwise`.
std::string busError(GstElement* pipeline, const std::string& otherwise) {
    GstBus* bus = gst_element_get_bus(pipeline);
    GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
    gst_object_unref(bus);
    if (!m) return otherwise;
    GError* err = nullptr;
    gst_message_parse_error(m, &err, nullptr);
    std::string text = err->message;
    g_error_free(err);
    gst_message_unref(m);
    return text;
}

struct ElementRun {
    std::vector<std::vector<int>> codes;  // per output component
    std::string active;                   // active-backend after the frames
    double ms = 0;                        // the second frame, push to pull
};

/// appsrc ! striate<stage> PROPERTIES ! appsink (or striatechain chain="...") on two copies of
/// `frame`; the second's output.
Status runElement(const std::string& chain, const std::string& backend, const std::string& board, const GstVideoInfo& layout,
                  const std::string& outFormat, GstBuffer* frame, ElementRun* run) {
    const std::string name = elementOf(chain);
    GstElement* element = gst_element_factory_make(name.c_str(), nullptr);
    if (!element) return Status::error("the plugin has no element " + name);
    if (name == "striatechain") {
        g_object_set(element, "chain", chain.c_str(), nullptr);
    } else {
        std::istringstream words(chain.substr(chain.find(' ') == std::string::npos ? chain.size() : chain.find(' ')));
        for (std::string word; words >> word;) {
            const auto eq = word.find('=');
            gst_util_set_object_arg(G_OBJECT(element), word.substr(0, eq).c_str(), word.substr(eq + 1).c_str());
        }
    }
    gst_util_set_object_arg(G_OBJECT(element), "backend", backend.c_str());
    if (!board.empty()) gst_util_set_object_arg(G_OBJECT(element), "board", board.c_str());
    // appsrc and appsink from libgstapp itself: no other plugin is needed.
    GstElement* pipeline = gst_pipeline_new("selftest");
    GstElement* src = GST_ELEMENT(g_object_new(GST_TYPE_APP_SRC, nullptr));
    GstElement* sink = GST_ELEMENT(g_object_new(GST_TYPE_APP_SINK, nullptr));
    GstCaps* inCaps = gst_video_info_to_caps(&layout);
    GstCaps* outCaps = gst_caps_from_string(("video/x-raw,format=" + outFormat).c_str());
    g_object_set(src, "caps", inCaps, "format", GST_FORMAT_TIME, nullptr);
    g_object_set(sink, "caps", outCaps, "sync", FALSE, nullptr);
    gst_caps_unref(inCaps);
    gst_caps_unref(outCaps);
    gst_bin_add_many(GST_BIN(pipeline), src, element, sink, nullptr);
    Status result;
    if (!gst_element_link_many(src, element, sink, nullptr)) {
        result = Status::error("cannot link appsrc ! " + name + " ! appsink");
    } else if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
        result = Status::error(busError(pipeline, "the pipeline does not start"));
    }
    for (int i = 0; i < 2 && result; ++i) {
        GstBuffer* copy = gst_buffer_copy(frame);  // shares the memory, carries the video meta
        GST_BUFFER_PTS(copy) = i * GST_SECOND / 30;
        GST_BUFFER_DURATION(copy) = GST_SECOND / 30;
        const auto t0 = std::chrono::steady_clock::now();
        gst_app_src_push_buffer(GST_APP_SRC(src), copy);
        GstSample* sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 60 * GST_SECOND);
        run->ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (!sample) {
            result = Status::error(busError(pipeline, "no frame came out within 60 s"));
            break;
        }
        GstVideoInfo info;
        GstVideoFrame out;
        if (!gst_video_info_from_caps(&info, gst_sample_get_caps(sample)) ||
            !gst_video_frame_map(&out, &info, gst_sample_get_buffer(sample), GST_MAP_READ)) {
            result = Status::error("cannot read the output frame");
        } else {
            run->codes.clear();
            const bool sixteen = GST_VIDEO_INFO_FORMAT(&info) == GST_VIDEO_FORMAT_GRAY16_LE;
            for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS(&out); ++c) {
                auto& v = run->codes.emplace_back();
                const auto* d = static_cast<const std::uint8_t*>(GST_VIDEO_FRAME_COMP_DATA(&out, c));
                const int stride = GST_VIDEO_FRAME_COMP_STRIDE(&out, c), step = GST_VIDEO_FRAME_COMP_PSTRIDE(&out, c);
                for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT(&out, c); ++y)
                    for (int x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH(&out, c); ++x) {
                        const std::uint8_t* p = d + y * stride + x * step;
                        v.push_back(sixteen ? p[0] | p[1] << 8 : p[0]);
                    }
            }
            gst_video_frame_unmap(&out);
        }
        gst_sample_unref(sample);
    }
    gchar* active = nullptr;
    g_object_get(element, "active-backend", &active, nullptr);
    run->active = active ? active : "";
    g_free(active);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
    return result;
}

} // namespace

Status findPlugin(std::string* description) {
    static std::string found;
    static Status status = [] {
        // A build tree's tool checks the plugin built beside it, not an installed one.
        std::error_code ec;
        const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
        const std::filesystem::path lib = self.parent_path().parent_path() / "lib";
        if (!ec && std::filesystem::exists(lib / "libgststriate.so")) {
            const char* old = std::getenv("GST_PLUGIN_PATH");
            const std::string path = lib.string() + (old && *old ? std::string(":") + old : "");
            setenv("GST_PLUGIN_PATH", path.c_str(), 1);
        }
        gst_init(nullptr, nullptr);
        GstPlugin* plugin = gst_registry_find_plugin(gst_registry_get(), "striate");
        if (!plugin)
            return Status::error("GStreamer finds no striate plugin (installed in its plugin directory, or on "
                                 "GST_PLUGIN_PATH): the elements cannot be checked");
        found = std::string(gst_plugin_get_filename(plugin) ? gst_plugin_get_filename(plugin) : "?") + " " +
                gst_plugin_get_version(plugin);
        const bool sameVersion = std::string(gst_plugin_get_version(plugin)) == STRIATE_VERSION;
        gst_object_unref(plugin);
        if (!sameVersion) return Status::error("the striate plugin GStreamer finds is " + found + ", the tool " STRIATE_VERSION);
        return Status{};
    }();
    *description = found;
    return status;
}

void checkElements(const Options& options, const std::vector<BackendKind>& backends,
                   const std::vector<std::string>& profiles, const std::function<void(Row)>& add) {
    const BackendMaker make = options.make ? options.make : BackendMaker(startBackend);
    Image<std::uint8_t> photo;
    const Status input = inputFor(Case{"", "photo", kWidth, kHeight, false}, options.dataDir, &photo);
    std::string plugin;
    const Status found = findPlugin(&plugin);
    for (BackendKind kind : backends) {
        const bool gpu = kind == BackendKind::GlesCompute || kind == BackendKind::GlesFragment;
        for (const std::string& profile : gpu ? profiles : std::vector<std::string>{"-"}) {
            const std::string board = gpu ? profile : options.board;
            for (const ElementCase& c : elementCases(options.full, gpu)) {
                Row row{nickOf(kBackendKinds, kind), profile, "element", Case{launchLine(c.chain), c.in + ">" + c.out, kWidth, kHeight, false},
                        {}, 0, true, ""};
                auto fail = [&](const std::string& why) {
                    row.accuracy = {std::nan(""), 0, false};
                    row.note = why;
                    add(row);
                };
                if (!input) return fail(input.message());
                if (!found) return fail(found.message());
                Chain chain;
                if (Status s = parseChain(c.chain, &chain); !s) return fail(s.message());
                const GstVideoInfo layout = oddLayout(gst_video_format_from_string(c.in.c_str()), kWidth, kHeight);
                GstBuffer* frame = makeFrame(layout, photo);
                GstVideoFrame in;
                gst_video_frame_map(&in, const_cast<GstVideoInfo*>(&layout), frame, GST_MAP_READ);
                std::vector<std::vector<int>> expected;
                std::string fallback;
                const Status direct = expectedCodes(make, kind, BackendOptions{0, board}, chain, in, c, &expected, &fallback);
                gst_video_frame_unmap(&in);
                ElementRun run;
                const Status ran = direct && fallback.empty()
                                       ? runElement(c.chain, row.backend, board, layout, c.out, frame, &run)
                                       : Status{};
                gst_buffer_unref(frame);
                if (!direct || !fallback.empty()) {
                    // The backend cannot run here (as in the battery): not a failure.
                    row.ran = false;
                    row.note = !direct ? direct.message() : fallback;
                    row.accuracy = {std::nan(""), 0, false};
                    add(row);
                    continue;
                }
                if (!ran) {
                    fail(ran.message());
                    continue;
                }
                if (run.active != row.backend) {
                    fail("the element ran " + run.active);
                    continue;
                }
                if (run.codes.size() != expected.size()) {
                    fail(std::to_string(run.codes.size()) + " output components, expected " + std::to_string(expected.size()));
                    continue;
                }
                int worst = 0;
                for (std::size_t k = 0; k < expected.size(); ++k) {
                    if (run.codes[k].size() != expected[k].size()) worst = 1 << 16;
                    for (std::size_t i = 0; i < std::min(run.codes[k].size(), expected[k].size()); ++i)
                        worst = std::max(worst, std::abs(run.codes[k][i] - expected[k][i]));
                }
                row.ms = run.ms;
                row.accuracy = {double(worst), 0, worst == 0};
                if (worst) row.note = "largest difference in output codes to the backend's direct result";
                add(row);
            }
        }
    }
}

} // namespace striate::selftest
