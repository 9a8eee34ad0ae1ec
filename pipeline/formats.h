#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <string>
#include <vector>

/// The video formats the filter elements take, declared once (docs/design.md, GStreamer elements):
/// the pad templates, caps negotiation and the frame handling of pipeline/filter.cpp all read
/// this table.
namespace striate::gst {

/// Where a pixel's luma is in plane 0: both memory paths read it from here (pipeline/frames.cpp
/// in system memory, gl_chain.cpp's texture sources in GL memory).
enum class LumaSource {
    Byte0,   ///< the pixel's first byte: GRAY8, the planar YUV formats, YUY2 and YVYU (Y U / Y V)
    Byte1,   ///< its second byte: UYVY (U Y / V Y)
    Gray16,  ///< a little-endian 16-bit sample, to the nearest 8-bit code
    Rgb,     ///< BT.601 of R, G, B in bytes 0, 1, 2
    Bgr,     ///< BT.601 of R, G, B in bytes 2, 1, 0
};

struct FormatTraits {
    GstVideoFormat format;
    const char* name;
    enum Kind {
        Grey,        ///< GRAY8, GRAY16_LE: the luma; also every element's output
        Planar420,   ///< NV12, NV21, I420: the luma is plane 0; half-size chroma
        Packed422,   ///< YUY2, UYVY, YVYU: the luma every second byte (webcams)
        Rgb,         ///< 8-bit RGB with alpha or padding: the luma is BT.601 of the channels
    } kind;
    LumaSource luma;
    int pixelBytes;  ///< bytes from one pixel's luma to the next in plane 0
};

inline constexpr FormatTraits kFormats[] = {
    {GST_VIDEO_FORMAT_GRAY8, "GRAY8", FormatTraits::Grey, LumaSource::Byte0, 1},
    {GST_VIDEO_FORMAT_NV12, "NV12", FormatTraits::Planar420, LumaSource::Byte0, 1},
    {GST_VIDEO_FORMAT_NV21, "NV21", FormatTraits::Planar420, LumaSource::Byte0, 1},
    {GST_VIDEO_FORMAT_I420, "I420", FormatTraits::Planar420, LumaSource::Byte0, 1},
    {GST_VIDEO_FORMAT_YUY2, "YUY2", FormatTraits::Packed422, LumaSource::Byte0, 2},
    {GST_VIDEO_FORMAT_UYVY, "UYVY", FormatTraits::Packed422, LumaSource::Byte1, 2},
    {GST_VIDEO_FORMAT_YVYU, "YVYU", FormatTraits::Packed422, LumaSource::Byte0, 2},
    {GST_VIDEO_FORMAT_RGBA, "RGBA", FormatTraits::Rgb, LumaSource::Rgb, 4},
    {GST_VIDEO_FORMAT_BGRA, "BGRA", FormatTraits::Rgb, LumaSource::Bgr, 4},
    {GST_VIDEO_FORMAT_RGBx, "RGBx", FormatTraits::Rgb, LumaSource::Rgb, 4},
    {GST_VIDEO_FORMAT_BGRx, "BGRx", FormatTraits::Rgb, LumaSource::Bgr, 4},
    {GST_VIDEO_FORMAT_GRAY16_LE, "GRAY16_LE", FormatTraits::Grey, LumaSource::Gray16, 2},
};

/// The table's entry of a format, or nullptr for one the elements do not take.
const FormatTraits* traitsOf(GstVideoFormat f);

bool isRgb(GstVideoFormat f);
bool isPacked422(GstVideoFormat f);
bool isPlanar420(GstVideoFormat f);
/// The formats striateblur outputs as they came in, every plane or channel blurred: RGB, the
/// 4:2:0 YUV formats (chroma planes half size both ways: blurred at half the sigma) and packed
/// 4:2:2 (chroma half size across only: blurred at full size, see blurPacked422).
bool passesThrough(GstVideoFormat f);
/// Whether the luma is plane 0 as it is (8-bit grey and the planar YUV formats).
bool lumaInPlace(GstVideoFormat f);

/// One channel a colour blur blurs: component `component` of `components` interleaved in plane
/// `plane` (RGB: 4; NV12's chroma: 2), by the full-size chain or, for a 4:2:0 chroma plane, the
/// half-size one.
struct ColourChannel {
    int plane, component, components;
    bool chroma;
};
/// The channels striateblur blurs in a format it passes through (not packed 4:2:2, whose chroma
/// is upsampled first: blurPacked422), in order; RGB's alpha or padding is copied, not blurred.
/// filter.cpp (system memory) and gl_chain.cpp (GL memory) both run this list.
std::vector<ColourChannel> colourChannels(GstVideoFormat f);

/// Pad template caps: every format of the table (`all`) or the grey ones (the outputs of
/// striategabor and striateedges), in system memory and, where `gl`, in GL memory too.
std::string templateCaps(bool all, bool gl);

/// GstBaseTransform::transform_caps of the filter elements: from the sink side any format to
/// grey (and, for striateblur, `keepsFormat`, the input format first); GL memory out only from
/// GL memory in (`glChain`: the build has GstGL).
GstCaps* transformCaps(bool keepsFormat, bool glChain, GstPadDirection direction, GstCaps* caps, GstCaps* filter);

} // namespace striate::gst
