// gles-fragment's planner: planes, draws, the stage loop and planes shared by liveness, all without a
// GL call (the per-stage planners are plan_blur.cpp, plan_recursive.cpp and plan_edges.cpp).
#include "gles/fragment/planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>
#include <variant>

#include "gles/fragment/glsl.h"
#include "gles/fragment/plan_cost.h"

namespace striate::gles {

FragmentPlanner::FragmentPlanner(const GpuLimits& limits, const FragmentOptions& options, const FragmentCapabilities& caps,
                                 const FrameFormat& format, FragmentPlan* plan)
    : limits_(limits), options_(options), caps_(caps), packed_(caps.packed), format_(format), plan_(plan),
      planes_(plan->planes), steps_(plan->steps), passes_(plan->passes), status_(plan->status) {}

void FragmentPlanner::fail(const std::string& message) {
    if (status_) status_ = Status::error(message);
}

PlaneFormat FragmentPlanner::planeFormat(bool complex, double bound, bool nonNegative) const {
    return PlaneFormat{packed_ ? PlaneKind::Packed : PlaneKind::Float, complex, bound, nonNegative};
}

int FragmentPlanner::newPlane(Plane::Storage storage, int width, int height) {
    Plane p;
    p.storage = storage;
    p.width = width;
    p.height = height;
    planes_.push_back(p);
    return static_cast<int>(planes_.size()) - 1;
}

int FragmentPlanner::borrowedPlane(int width, int height, bool withFbo) {
    const int i = newPlane(Plane::Storage::Borrowed, width, height);
    planes_[i].withFbo = withFbo;
    return i;
}

int FragmentPlanner::acquire(const PlaneFormat& format, int width, int height) {
    if (width == 0) width = format_.width;
    if (height == 0) height = format_.height;
    const PlaneKind kind = format.kind;
    const Plane::Storage texels = kind == PlaneKind::QuadRows ? Plane::Storage::Layers
                               : packed_ || holdsCodes(kind) || kind == PlaneKind::Quad8 ? Plane::Storage::Rgba8
                               : kind == PlaneKind::Quad   ? Plane::Storage::Rgba32f
                               : format.complex            ? Plane::Storage::Rg32f
                                                           : Plane::Storage::R32f;
    return newPlane(texels, width, height);
}

void FragmentPlanner::share() {
    // Kinds: planes share only with planes of the same texture and size; the luma with none (it
    // is uploaded before the first draw, and the GstGL path swaps its texture).
    std::vector<std::tuple<Plane::Storage, int, int>> kinds;
    std::vector<int> kindOf;
    for (const Plane& p : planes_) {
        const auto key = std::make_tuple(p.storage, p.width, p.height);
        auto it = std::find(kinds.begin(), kinds.end(), key);
        if (it == kinds.end()) it = kinds.insert(kinds.end(), key);
        kindOf.push_back(static_cast<int>(it - kinds.begin()));
    }
    const int red = plan_->redResult > 0 ? plan_->redResult : -1;
    const Sharing s = sharePlanes(steps_, kindOf, PlaneEnds{{}, {plan_->result.plane, red, plan_->pairedRows}, {plan_->luma}},
                                  [](Draw& d, auto&& plane) {
                                      for (int& p : d.inputs) plane(p);
                                      plane(d.target);
                                  });
    std::vector<Plane> shared;
    for (int kind : s.storageKinds) {
        Plane p;
        std::tie(p.storage, p.width, p.height) = kinds[kind];
        shared.push_back(p);
    }
    // A storage with the stencil buffer attached where any of its values needs it (draws without
    // a stencil test ignore it).
    for (std::size_t i = 0; i < planes_.size(); ++i)
        if (s.storage[i] >= 0 && planes_[i].stencil) shared[s.storage[i]].stencil = true;
    plan_->luma = s.remap(plan_->luma);
    plan_->result.plane = s.remap(plan_->result.plane);
    if (plan_->redResult > 0) plan_->redResult = s.remap(plan_->redResult);
    if (plan_->pairedRows >= 0) plan_->pairedRows = s.remap(plan_->pairedRows);
    planes_ = std::move(shared);
}

int FragmentPlanner::shaderIndex(const FragmentShader& shader) {
    if (!status_) return -1;
    if (!fits(shader.cost, limits_.budget)) {
        fail("gles-fragment: shader '" + shader.name + "' costs " + describe(shader.cost) +
             ", over the board's budget of " + describe(limits_.budget));
        return -1;
    }
    std::vector<FragmentShader>& shaders = plan_->shaders;
    const auto same = std::find_if(shaders.begin(), shaders.end(), [&](const FragmentShader& x) { return x.source == shader.source; });
    if (same != shaders.end()) return static_cast<int>(same - shaders.begin());
    shaders.push_back(shader);
    return static_cast<int>(shaders.size()) - 1;
}

Draw FragmentPlanner::makeDraw(const FragmentShader& shader, const std::vector<Value>& inputs, const Value& target,
                               const Uniforms& uniforms) {
    Draw d;
    d.shader = shaderIndex(shader);
    d.target = target.plane;
    auto set = [&](const std::string& name, int components, std::vector<float> values) {
        d.uniforms.push_back({name, components, std::move(values)});
    };
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        d.inputs.push_back(inputs[i].plane);
        if (inputs[i].plane < 0) continue;
        const Plane& in = planes_[inputs[i].plane];
        set("u_texel" + std::to_string(i), 2, {1.0f / in.width, 1.0f / in.height});
        if (holdsCodes(inputs[i].format.kind)) {
            const auto c = codeUniform(inputs[i].format);
            set("u_code" + std::to_string(i), 2, {c[0], c[1]});
        }
        if (inputs[i].format.kind == PlaneKind::QuadRows)
            set(named("u_w", static_cast<int>(i)), 2, {format_.width - 0.5f, format_.height - 0.5f});
    }
    if (holdsCodes(target.format.kind)) {
        const auto o = outUniform(target.format);
        set("u_out", 2, {o[0], o[1]});
    }
    for (const auto& [name, values] : uniforms) set(name, 4, values);
    return d;
}

FragmentPlanner::Value FragmentPlanner::full(const FragmentShader& shader, const std::vector<Value>& inputs,
                                             const PlaneFormat& out, const Uniforms& uniforms, int width, int height) {
    return into(shader, inputs, Value{acquire(out, width, height), out}, uniforms);
}

FragmentPlanner::Value FragmentPlanner::into(const FragmentShader& shader, const std::vector<Value>& inputs,
                                             const Value& target, const Uniforms& uniforms) {
    steps_.push_back(DrawStep{{makeDraw(shader, inputs, target, uniforms)}, false, -1});
    passes_.push_back({shader.name, describe(target.format), "1 draw; " + describe(shader.cost)});
    return target;
}

void FragmentPlanner::chooseByEstimate(const Chain& chain) {
    // The candidates plan with no speed, so that each takes its forms as given. The first is the
    // rule's own plan (the options as given, untiled where tiles are free: the tiled plan is an
    // alternative below): it shows which forms the chain has a use for, and it is kept on a tie.
    // Where no candidate fits the board, the smallest that planned is kept (the backend then
    // refuses it by its size), else the first with its failure.
    GpuLimits plain = limits_;
    plain.speed = GpuSpeed{};
    FragmentOptions ruleOptions = options_;
    if (ruleOptions.tiles == TileUse::WhereSmaller) ruleOptions.tiles = TileUse::Never;
    FragmentPlan rule;
    FragmentPlanner first(plain, ruleOptions, caps_, format_, &rule);
    first.stripWidths_ = stripWidths_;
    first.planChain(chain);
    auto formsOf = [](const FragmentOptions& o) {
        return std::string("recursive ") +
               (o.recursiveForm == RecursiveForm::Auto ? "by the rule" : nickOf(kRecursiveForms, o.recursiveForm)) + ", boxes " +
               (o.boxPyramid == PyramidUse::Always ? "pyramid" : o.boxPyramid == PyramidUse::Never ? "taps" : "by the rule") +
               ", tiles " + (o.tiles == TileUse::Always ? "always" : "never");
    };
    auto fitsBoard = [&](const FragmentPlan& p) {
        return p.status && (limits_.memoryBytes == 0 || p.bytes() <= limits_.memoryBytes);
    };
    struct Candidate {
        FragmentOptions options;
        double seconds;
        FragmentPlan plan;
    };
    std::vector<Candidate> fitting;
    bool planned = false;  // *plan_ holds the smallest candidate that planned, should none fit
    auto consider = [&](const FragmentOptions& o, FragmentPlan&& candidate) {
        if (fitsBoard(candidate)) {
            const double seconds = estimatePlan(candidate, limits_.speed).seconds;
            fitting.push_back({o, seconds, std::move(candidate)});
        } else if (candidate.status && (!planned || candidate.bytes() < plan_->bytes())) {
            *plan_ = std::move(candidate);
            planned = true;
        }
    };
    *plan_ = FragmentPlan{};
    plan_->status = rule.status;
    consider(ruleOptions, std::move(rule));
    auto best = [&] {
        return chooseQuickest(fitting.size(), [&](std::size_t i) { return fitting[i].seconds; },
                              [&](std::size_t i) { return fitting[i].plan.bytes(); });
    };
    // One form at a time, from the best plan so far: each form the options leave free and the
    // chain uses, its alternatives planned with the others as chosen. The forms act on different
    // passes (recursive filters, boxes, two-pass direct blurs), so this finds what trying every
    // combination finds, in a third of the plans (PlanCost.ThePlannerTakesTheCheapest* checks
    // it against every combination).
    FragmentOptions chosenOptions = ruleOptions;
    auto tryEach = [&](auto field, auto... values) {
        const FragmentOptions from = chosenOptions;
        for (auto v : {values...}) {
            if (from.*field == v) continue;
            FragmentOptions o = from;
            o.*field = v;
            FragmentPlan candidate;
            FragmentPlanner planner(plain, o, caps_, format_, &candidate);
            planner.stripWidths_ = stripWidths_;
            planner.planChain(chain);
            consider(o, std::move(candidate));
        }
        if (!fitting.empty()) chosenOptions = fitting[best()].options;
    };
    if (options_.recursiveForm == RecursiveForm::Auto && first.recursiveFormsApply_)
        tryEach(&FragmentOptions::recursiveForm, RecursiveForm::Response, RecursiveForm::Strips, RecursiveForm::Block);
    if (options_.boxPyramid == PyramidUse::WhereCheaper && first.pyramidApplies_)
        tryEach(&FragmentOptions::boxPyramid, PyramidUse::Always, PyramidUse::Never);
    if (options_.tiles == TileUse::WhereSmaller && first.tilesWouldApply_) tryEach(&FragmentOptions::tiles, TileUse::Always);
    if (fitting.empty()) return;
    const std::size_t chosen = best();
    // The alternatives' estimates, each distinct figure once (forms that change nothing plan the
    // same draws).
    std::string others;
    std::vector<double> listed{fitting[chosen].seconds};
    char ms[32];
    for (const Candidate& c : fitting) {
        if (std::any_of(listed.begin(), listed.end(), [&](double x) { return std::abs(x - c.seconds) <= 1e-12; })) continue;
        listed.push_back(c.seconds);
        std::snprintf(ms, sizeof ms, "%.3f ms", c.seconds * 1e3);
        others += std::string(others.empty() ? "" : "; ") + formsOf(c.options) + ": " + ms + ", " + describeBytes(c.plan.bytes());
    }
    std::snprintf(ms, sizeof ms, "%.3f ms", fitting[chosen].seconds * 1e3);
    const std::string forms = formsOf(fitting[chosen].options), bytes = describeBytes(fitting[chosen].plan.bytes());
    *plan_ = std::move(fitting[chosen].plan);
    plan_->formsChosen = "forms chosen by the board's estimate (not a measurement): " + forms + ": " + ms + ", " + bytes +
                         (others.empty() ? std::string("; no alternative differs") : "; the alternatives: " + others);
}

void FragmentPlanner::planChain(const Chain& chain) {
    if (limits_.speed.qpus > 0) return chooseByEstimate(chain);
    if (options_.tiles == TileUse::WhereSmaller) {
        // Tiles cost draws and repeated rows, and a tile shares storage with no frame-sized
        // plane: they are taken only where the whole plan is smaller with them (a blur's, not a
        // packed Canny's, whose peak comes after the blur).
        FragmentOptions untiled = options_, tiled = options_;
        untiled.tiles = TileUse::Never;
        tiled.tiles = TileUse::Always;
        FragmentPlan a, b;
        FragmentPlanner first(limits_, untiled, caps_, format_, &a);
        first.planChain(chain);
        tilesWouldApply_ = first.tilesWouldApply_;
        recursiveFormsApply_ = first.recursiveFormsApply_;
        pyramidApplies_ = first.pyramidApplies_;
        if (first.tilesWouldApply_) FragmentPlanner(limits_, tiled, caps_, format_, &b).planChain(chain);
        *plan_ = first.tilesWouldApply_ && b.status && (!a.status || b.bytes() < a.bytes()) ? std::move(b) : std::move(a);
        return;
    }
    // The input: its 8-bit codes, which every texture fetch turns into the unit values c / 255
    // (docs/algorithms.md 0; GLES 3.2 2.3.5.1, within the float's rounding).
    plan_->luma = newPlane(Plane::Storage::Luma, format_.width, format_.height);
    Value v{plan_->luma, PlaneFormat{PlaneKind::Luma8, false, 1, true}};
    for (std::size_t i = 0; i < chain.stages.size() && status_; ++i) {
        v = std::visit([&](const auto& p) { return stage(p, v); }, planStage(chain.stages[i]));
    }
    plan_->result = v;
    plan_->complexOutput = chain.complexOutput();
    if (edgesFromFlood_.plane >= 0 && edgesFromFlood_.plane == v.plane) {
        plan_->floodResult = edgesFromFlood_.step;
        for (auto p = passes_.rbegin(); p != passes_.rend(); ++p)
            if (p->name == kFloodPass) {
                p->grid += " for a frame into a texture; in one in system memory, the result";
                break;
            }
        PassInfo& output = passes_.back();
        output.grid = "1 draw into a texture (a frame in system memory: none, the flood gives the result)" +
                      output.grid.substr(output.grid.find(';'));
    }
    if (unpaired_.plane >= 0 && unpaired_.plane == v.plane && unpaired_.step == static_cast<int>(steps_.size()) - 1) {
        plan_->pairedResult = unpaired_.step;
        plan_->pairedRows = unpaired_.rows;
        plan_->pairedPhases = unpaired_.phases;
        PassInfo& output = passes_.back();
        output.grid = "1 draw into a texture (a frame in system memory: none, the host unpairs the rows it reads back)" +
                      output.grid.substr(output.grid.find(';'));
    }
    // A real float result is an R32F plane: read straight into the output where the driver reads
    // it as GL_RED / GL_FLOAT.
    if (caps_.redReadback && !packed_ && status_ && v.format.kind == PlaneKind::Float && !v.format.complex)
        plan_->redResult = v.plane;
    if (status_) share();
}

} // namespace striate::gles
