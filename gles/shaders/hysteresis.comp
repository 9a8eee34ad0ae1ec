// One pass of hysteresis (docs/algorithms.md 4.1) over 16x16 tiles: a weak pixel (1) becomes an edge
// (3) when one of its 8 neighbours is strong (2) or an edge; within a tile this repeats in
// workgroup memory until nothing changes, so one pass carries an edge across a whole tile. Tiles
// read their 1-pixel halo from the image, which other tiles may be updating: values only grow
// (1 -> 3), so a stale read only defers a step to the next pass. A tile that changed anything
// adds to `changed`; the passes repeat (gated on the GPU by hysteresis_gate.comp) until a pass
// changes nothing, which is the fixed point: every weak pixel connected to a strong one is an edge.
// `iterations` counts the tile loop's iterations, summed over the workgroups of every pass, and
// the gate counts the passes (--explain; the Pi estimates count the work as it ran,
// scripts/pi_passes.py).
layout(local_size_x = 16, local_size_y = 16) in;
layout(r32ui, binding = 0) coherent uniform highp uimage2D classes;
layout(std430, binding = 0) buffer Changed { uint changed; uint passes; uint iterations; };
shared uint tile[18 * 18];
shared bool tileChanged;
shared bool anyChanged;

void main() {
    ivec2 size = imageSize(classes);
    ivec2 origin = ivec2(gl_WorkGroupID.xy) * 16 - 1;
    int lid = int(gl_LocalInvocationIndex);
    for (int i = lid; i < 18 * 18; i += 256) {
        ivec2 q = origin + ivec2(i % 18, i / 18);
        bool inside = all(greaterThanEqual(q, ivec2(0))) && all(lessThan(q, size));
        tile[i] = inside ? imageLoad(classes, q).r : 0u;
    }
    if (lid == 0) {
        anyChanged = false;
        tileChanged = false;
    }
    barrier();
    ivec2 local = ivec2(gl_LocalInvocationID.xy) + 1;
    int me = local.y * 18 + local.x;
    ivec2 p = origin + local;
    bool inside = p.x < size.x && p.y < size.y;
    bool mine = false;
    uint runs = 0u;
    // Every barrier sits in control flow that is uniform across the workgroup: `again` is read by
    // all invocations between two barriers, and reset only after the second.
    for (int iteration = 0; iteration < 16 * 16; ++iteration) {
        ++runs;
        bool grow = false;
        if (inside && tile[me] == 1u) {
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx)
                    if (tile[me + dy * 18 + dx] >= 2u) grow = true;
        }
        barrier();
        if (grow) {
            tile[me] = 3u;
            mine = true;
            tileChanged = true;
            anyChanged = true;
        }
        barrier();
        bool again = tileChanged;
        barrier();
        if (lid == 0) tileChanged = false;
        if (!again) break;
    }
    if (mine) imageStore(classes, p, uvec4(3u, 0u, 0u, 0u));
    if (lid == 0) {
        if (anyChanged) atomicAdd(changed, 1u);
        atomicAdd(iterations, runs);
    }
}
