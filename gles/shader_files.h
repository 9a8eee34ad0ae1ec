#pragma once

#include <optional>
#include <string_view>

namespace striate::gles {

/// The text of a shader file of gles/shaders/, embedded at build time (cmake/EmbedShaders.cmake).
std::optional<std::string_view> shaderFile(std::string_view name);

} // namespace striate::gles
