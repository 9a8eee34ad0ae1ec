// One pass of hysteresis (docs/algorithms.md 4.1) over 16x16 tiles: a weak pixel (1) becomes an edge
// (3) when one of its 8 neighbours is strong (2) or an edge. A workgroup holds its tile as bits,
// an invocation a row: bit x + 1 of a row is column x of the tile, bits 0 and 17 its halo's
// columns, and rows 0 and 17 of `edge` its halo's rows (read from the image, which other tiles
// may be updating: values only grow, 1 -> 3, so a stale read only defers a step). Each iteration
// of the tile loop seeds every weak pixel beside an edge (the rows above and below and the row
// itself, dilated by a pixel) and carries the seeds along their row's runs of weak pixels both
// ways at once (an add carries them up, a prefix of shifts down); it repeats in workgroup memory
// until no row changes, so one pass carries an edge across its tile.
// The first pass runs every tile. A tile that grew a pixel on its border lists the neighbours
// whose halo holds it for the next pass (hysteresis_gate.comp sizes that pass's indirect grid);
// no other tile can change there. The passes repeat until one lists nothing: the fixed point,
// where every weak pixel connected to a strong one is an edge.
// The two lists of tiles (the one this pass reads and the one it writes) are the texels of an
// R32UI plane no other pass needs by then (the planner's), list L's entry i at texel L * tiles + i
// in row order; a tile is listed once per list, by its bit in `listed`, which its own pass clears.
// `iterations` counts the tile loop's iterations, summed over the tiles of every pass, and the
// gate the passes and their tiles (--explain; the Pi estimates count the work as it ran,
// scripts/pi_passes.py).
layout(local_size_x = 16) in;
layout(r32ui, binding = 0) coherent uniform highp uimage2D classes;
layout(r32ui, binding = 1) uniform highp uimage2D lists;
layout(std430, binding = 0) buffer Work {
    uint count[2];   // tiles in each list
    uint current;    // the list this pass reads (LISTED); it writes the other
    uint passes;     // passes that ran a tile, the first included (the gate's)
    uint tiles;      // tiles they ran (the gate's)
    uint iterations; // the tile loop's iterations, summed over them
    uint listed[];   // a bit a tile, list 0's words then list 1's
};
uniform uvec2 grid;  // tiles across and down

shared uint edge[18];  // per row of the tile and its halo: bits where the class is 2 or 3
shared bool tileChanged;
shared uint borders;   // neighbours to list (bit d: kNeighbour[d])

const ivec2 kNeighbour[8] = ivec2[8](ivec2(-1, -1), ivec2(0, -1), ivec2(1, -1), ivec2(-1, 0), ivec2(1, 0),
                                     ivec2(-1, 1), ivec2(0, 1), ivec2(1, 1));

ivec2 texelOf(uint entry) {
    uint width = uint(imageSize(lists).x);
    return ivec2(int(entry % width), int(entry / width));
}

// Bits x of texels (origin.x + x, y), x in 0..17, where the class is 1 or more (`some`) and 2 or
// more (`edges`), within `columns`, and none where row y is outside the image (a texel outside
// the image is read clamped to it, and its bit masked off).
void loadRow(ivec2 origin, int y, uint columns, out uint some, out uint edges) {
    some = 0u;
    edges = 0u;
    for (int x = 0; x < 18; ++x) {
        uint c = imageLoad(classes, clamp(ivec2(origin.x + x, y), ivec2(0), imageSize(classes) - 1)).r;  // 0 to 3
        some |= min(c, 1u) << uint(x);
        edges |= (c >> 1u) << uint(x);
    }
    if (y < 0 || y >= imageSize(classes).y) columns = 0u;
    some &= columns;
    edges &= columns;
}

void main() {
    uint tileCount = grid.x * grid.y;
    uint words = (tileCount + 31u) / 32u;
    uint r = gl_LocalInvocationID.x;  // this invocation's row of the tile: row r + 1 of `edge`
#ifdef LISTED
    uint cur = current;  // a workgroup an entry of the list
    uint tile = imageLoad(lists, texelOf(cur * tileCount + gl_WorkGroupID.x)).r;
    if (r == 0u) atomicAnd(listed[cur * words + tile / 32u], ~(1u << (tile % 32u)));
#else
    uint cur = 1u;  // the first pass lists into list 0
    uint tile = gl_WorkGroupID.y * grid.x + gl_WorkGroupID.x;
#endif
    ivec2 at = ivec2(int(tile % grid.x), int(tile / grid.x));
    ivec2 origin = at * 16 - 1;  // of the halo
    ivec2 size = imageSize(classes);
    int lo = max(0, -origin.x), hi = min(18, size.x - origin.x);
    uint columns = ((1u << uint(hi)) - 1u) & ~((1u << uint(lo)) - 1u);
    if (r == 0u) {
        tileChanged = false;
        borders = 0u;
    }
    int y = origin.y + int(r) + 1;
    uint some, e, halo = 0u, unused;
    loadRow(origin, y, columns, some, e);
    uint w = some & ~e & 0x1fffeu;  // weak, inside the tile
    if (r == 0u || r == 15u) loadRow(origin, r == 0u ? origin.y : origin.y + 17, columns, unused, halo);
    edge[r + 1u] = e;
    if (r == 0u) edge[0] = halo;
    if (r == 15u) edge[17] = halo;
    barrier();
    uint first = e;
    uint m = w | e;  // the pixels an edge may run through
    uint runs = 0u;
    // Every barrier sits in control flow that is uniform across the workgroup: `again` is read by
    // all invocations between two barriers, and reset only after the second.
    for (int iteration = 0; iteration < 16 * 16; ++iteration) {
        ++runs;
        uint near = edge[r] | e | edge[r + 2u];
        near |= (near << 1u) | (near >> 1u);
        uint s = e | (w & near);
        // Along the runs of m: up by the carry of an add, down by a prefix of shifts.
        uint g = s, p = m;
        g |= p & (g >> 1u);
        p &= p >> 1u;
        g |= p & (g >> 2u);
        p &= p >> 2u;
        g |= p & (g >> 4u);
        p &= p >> 4u;
        g |= p & (g >> 8u);
        p &= p >> 8u;
        g |= p & (g >> 16u);
        uint grown = ((((m + s) ^ m) & m) | s | g);
        barrier();
        if (grown != e) {
            e = grown;
            edge[r + 1u] = e;
            tileChanged = true;
        }
        barrier();
        bool again = tileChanged;
        barrier();
        if (r == 0u) tileChanged = false;
        if (!again) break;
    }
    uint grew = e & ~first;
    uint sides = 0u;
    if ((grew & 2u) != 0u) sides |= 1u << 3u;
    if ((grew & 0x10000u) != 0u) sides |= 1u << 4u;
    if (r == 0u && grew != 0u) sides |= ((grew & 2u) != 0u ? 1u : 0u) | 2u | ((grew & 0x10000u) != 0u ? 4u : 0u);
    if (r == 15u && grew != 0u) sides |= ((grew & 2u) != 0u ? 32u : 0u) | 64u | ((grew & 0x10000u) != 0u ? 128u : 0u);
    if (sides != 0u) atomicOr(borders, sides);
    for (uint bits = grew; bits != 0u; bits &= bits - 1u)
        imageStore(classes, ivec2(origin.x + findLSB(bits), y), uvec4(3u, 0u, 0u, 0u));
    barrier();
    if (r < 8u && (borders & (1u << r)) != 0u) {
        ivec2 n = at + kNeighbour[r];
        if (all(greaterThanEqual(n, ivec2(0))) && all(lessThan(n, ivec2(grid)))) {
            uint next = 1u - cur, u = uint(n.y) * grid.x + uint(n.x), bit = 1u << (u % 32u);
            if ((atomicOr(listed[next * words + u / 32u], bit) & bit) == 0u)
                imageStore(lists, texelOf(next * tileCount + atomicAdd(count[next], 1u)), uvec4(u, 0u, 0u, 0u));
        }
    }
    if (r == 0u) atomicAdd(iterations, runs);
}
