#pragma once

#include <cstdint>

#include "core/image.h"
#include "core/spec.h"

namespace striate::sensors {

/// Scenes of the synthetic camera (the `scene` property of striatesrc).
enum class Scene { Shapes, Grating, SiemensStar, Text, Photo };
inline constexpr EnumName<Scene> kScenes[] = {
    {Scene::Shapes, "shapes", "Moving disk, rectangle and bar on a ramp"},
    {Scene::Grating, "grating", "Drifting sinusoidal grating"},
    {Scene::SiemensStar, "siemens-star", "Rotating Siemens star"},
    {Scene::Text, "text", "Scrolling text"},
    {Scene::Photo, "photo", "A real photo (location), panning and zooming slowly"}};

/// A sensor noise model in electrons: the scene's radiance (0..1) times `exposure` fills up to
/// `fullWell` electrons; shot noise has the variance of the signal (Poisson, Gaussian
/// approximation), read noise adds `readNoise` electrons rms; the ADC maps 0..fullWell to 0..255.
struct NoiseModel {
    bool enabled = true;
    double fullWell = 4000;   ///< electrons at 8-bit full scale
    double readNoise = 8;     ///< electrons rms
    double exposure = 1.0;    ///< radiance scale before the ADC (saturates above 1)
};

struct CameraSettings {
    Scene scene = Scene::Shapes;
    bool motion = true;  ///< the scene moves from frame to frame
    NoiseModel noise;
    std::uint64_t seed = 0;  ///< same seed, frame and settings: the same image
    /// Scene::Photo: the photo (8-bit luma, not owned) the camera looks at. It is scaled to cover
    /// the frame with a margin (any size or aspect), and with `motion` the view pans and zooms
    /// slowly across it.
    ImageView<const std::uint8_t> photo;
};

/// Renders rows [y0, y1) of frame `index` of the synthetic camera into an 8-bit plane.
/// Deterministic: a pixel depends only on the settings, the index, its position and the plane's
/// size, so callers may render bands of rows in parallel.
void renderRows(const CameraSettings& settings, std::uint64_t index, ImageView<std::uint8_t> out, int y0, int y1);

} // namespace striate::sensors
