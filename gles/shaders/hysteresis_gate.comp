// Between hysteresis passes, on the GPU: the next pass runs (its indirect dispatch gets the full
// grid) only if the last one changed something, and the counter starts again from zero. After the
// fixed point every remaining pass dispatches no workgroups, so a batch of passes can be queued
// without reading anything back in between. `passes` counts the passes that ran over the full grid
// (the host starts it at 1: the first always does), for --explain.
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Changed { uint changed; uint passes; uint iterations; };  // hysteresis.comp's
layout(std430, binding = 1) buffer Dispatch { uint groups[3]; };
uniform uvec2 grid;

void main() {
    groups[0] = changed > 0u ? grid.x : 0u;
    if (changed > 0u) passes += 1u;
    groups[1] = grid.y;
    groups[2] = 1u;
    changed = 0u;
}
