// Between hysteresis passes, on the GPU: the next pass runs the tiles the last one listed (its
// indirect grid: a workgroup a tile, in a row; a frame has at most 3840x2160 pixels' tiles,
// gles/gles_backend.h's kMaxGpuHysteresisPixels, fewer than a grid's row may hold), and the list
// the last pass read starts again empty, for the next pass to write. After the fixed point every
// remaining pass dispatches no workgroups, so a batch of passes can be queued without reading
// anything back in between. `passes` and `tiles` count the passes that ran a tile and the tiles
// they ran (the host starts them at the first pass's: 1 and every tile), for --explain.
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Work { uint count[2]; uint current; uint passes; uint tiles; };  // hysteresis.comp's
layout(std430, binding = 1) buffer Dispatch { uint groups[3]; };

void main() {
    uint next = 1u - current, n = count[next];
    groups[0] = n;
    groups[1] = 1u;
    groups[2] = 1u;
    if (n > 0u) {
        passes += 1u;
        tiles += n;
    }
    count[current] = 0u;
    current = next;
}
