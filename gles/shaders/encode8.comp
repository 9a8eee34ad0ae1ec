// process8's codes on the GPU: the real result plane through the output's encoding, eight pixels
// of a row an invocation (a uvec2, the first pixel in the low byte), rows of (width + 7) / 8 of
// them, into a buffer the host maps: a quarter of the float read-back's bytes. The host's encode8 (core/spec.h) in float, in
// its order, for an encoding without offset (the backend runs it only there: with one, a fused
// multiply-add could round otherwise): u = (scale v) * 255, 0 where not u > 0, 255 from 255, else
// floor(u + 0.5), as min(max(0, u) + 0.5, 255) truncated (a result is never NaN).
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform highp sampler2D result;
layout(std430, binding = 0) writeonly buffer Codes { highp uvec2 codes[]; };
uniform int width, height;
uniform highp float scale;

// Four codes from four pixels of the row from `at`, the first in the low byte.
highp uint quad(ivec2 at) {
    highp vec4 v = vec4(texelFetch(result, at, 0).r, texelFetch(result, at + ivec2(1, 0), 0).r,
                        texelFetch(result, at + ivec2(2, 0), 0).r, texelFetch(result, at + ivec2(3, 0), 0).r);
    // The host's vectorised form: min(max(0, u) + 0.5, 255), truncated.
    uvec4 c = uvec4(min(max((scale * v) * 255.0, 0.0) + 0.5, 255.0));
    return c.x | (c.y << 8) | (c.z << 16) | (c.w << 24);
}

void main() {
    int q = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y), blocks = (width + 7) / 8;
    if (q >= blocks || y >= height) return;
    // Past the row's last pixel a fetch's value is undefined, and so is its code: the host copies
    // the row's own codes only.
    ivec2 at = ivec2(8 * q, y);
    codes[y * blocks + q] = uvec2(quad(at), quad(at + ivec2(4, 0)));
}
