// Copies the result plane(s) into a storage buffer that the host maps: W floats per row, or
// (re, im) pairs with COMPLEX. One invocation per pixel.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform highp sampler2D re;
#if COMPLEX
layout(binding = 1) uniform highp sampler2D im;
#endif
layout(std430, binding = 0) writeonly buffer Out { highp float values[]; };

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = textureSize(re, 0);
    if (p.x >= size.x || p.y >= size.y) return;
    int i = p.y * size.x + p.x;
#if COMPLEX
    values[2 * i] = texelFetch(re, p, 0).r;
    values[2 * i + 1] = texelFetch(im, p, 0).r;
#else
    values[i] = texelFetch(re, p, 0).r;
#endif
}
