#include "core/params.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <type_traits>

namespace striate {
namespace {

std::optional<double> parseDouble(std::string_view s) {
    // Decimal only: strtod also reads hexadecimal ("0x10" as 16) and leading spaces. "nan" and
    // "inf" parse, and validation then names them.
    std::size_t i = s.size() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (s.substr(i) != "nan" && s.substr(i) != "inf") {
        bool digits = false;
        for (; i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.'); ++i) digits |= s[i] != '.';
        if (digits && i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
            i += i + 1 < s.size() && (s[i + 1] == '-' || s[i + 1] == '+') ? 2 : 1;
            while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
        }
        if (!digits || i != s.size()) return std::nullopt;
    }
    std::string copy(s);
    char* end = nullptr;
    double v = std::strtod(copy.c_str(), &end);
    if (copy.empty() || end != copy.c_str() + copy.size()) return std::nullopt;
    return v;
}

std::optional<int> parseInt(std::string_view s) {
    int v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
    return v;
}

std::optional<bool> parseBool(std::string_view s) {
    if (s == "true" || s == "1" || s == "yes") return true;
    if (s == "false" || s == "0" || s == "no") return false;
    return std::nullopt;
}

/// A range end as the help writes it: 1e6, not 1e+06.
std::string rangeEnd(double v) {
    std::string s = formatNumber(v);
    if (const auto e = s.find("e+"); e != std::string::npos) {
        std::size_t digits = e + 2;
        while (digits + 1 < s.size() && s[digits] == '0') ++digits;
        s = s.substr(0, e + 1) + s.substr(digits);
    }
    return s;
}

/// The spec type and field type of a pointer to a spec's field.
template <auto Member>
struct FieldOf;
template <class S, class T, T S::*Member>
struct FieldOf<Member> {
    using Spec = S;
    using Type = T;
};

/// The table entry of the field `Member`: its type, and get/set through the Stage.
template <auto Member>
ParamDef field(const char* name, const char* title, const char* blurb, double min = 0, double max = 0) {
    using Spec = typename FieldOf<Member>::Spec;
    using T = typename FieldOf<Member>::Type;
    ParamDef p{name, title, blurb};
    p.type = std::is_same_v<T, double> ? ParamDef::Type::Number
             : std::is_same_v<T, int>  ? ParamDef::Type::Integer
             : std::is_same_v<T, bool> ? ParamDef::Type::Boolean
                                       : ParamDef::Type::Enum;
    p.min = min;
    p.max = max;
    p.get = [](const Stage& s) { return static_cast<double>(std::get<Spec>(s).*Member); };
    p.set = [](Stage& s, double v) {
        if constexpr (std::is_enum_v<T>) std::get<Spec>(s).*Member = static_cast<T>(static_cast<int>(v));
        else if constexpr (std::is_same_v<T, bool>) std::get<Spec>(s).*Member = v != 0;
        else std::get<Spec>(s).*Member = static_cast<T>(v);
    };
    return p;
}

template <auto Member>
ParamDef choice(const char* name, const char* title, const char* blurb, const EnumInfo& values) {
    ParamDef p = field<Member>(name, title, blurb);
    p.values = &values;
    return p;
}

ParamDef withUnit(ParamDef p, const char* unit) {
    p.unit = unit;
    return p;
}

const EnumInfo kBlurMethodInfo = enumInfo("GstStriateBlurMethod", kBlurMethods);
const EnumInfo kGaborMethodInfo = enumInfo("GstStriateGaborMethod", kGaborMethods);
const EnumInfo kGaborOutputInfo =
    enumInfo("GstStriateGaborOutput", kGaborOutputs, static_cast<int>(GaborOutput::Complex));
const EnumInfo kEdgeMethodInfo = enumInfo("GstStriateEdgeMethod", kEdgeMethods);
const EnumInfo kEdgeOutputInfo = enumInfo("GstStriateEdgeOutput", kEdgeOutputs);

// The tables, one per stage. Ranges are the element property ranges; validate() checks them
// whatever the method, and the combinations.
std::vector<StageInfo> makeStageInfos() {
    std::vector<StageInfo> all;
    all.push_back({"blur", "Gaussian blur (docs/algorithms.md 1-2)", BlurSpec{},
                   {field<&BlurSpec::sigma>("sigma", "Sigma", "Standard deviation of the Gaussian, in pixels", kMinSigma,
                                            kMaxSigma),
                    choice<&BlurSpec::method>("method", "Method",
                                              "How the Gaussian is computed (method=recursive needs sigma >= 0.5)",
                                              kBlurMethodInfo)},
                   {"blur sigma=2 method=direct", "blur sigma=6 method=boxes", "blur sigma=8 method=recursive", "blur sigma=1"},
                   {"blur sigma=2", "blur sigma=8"},
                   /**
                    * SECTION:element-striateblur
                    *
                    * Gaussian blur of grey, YUV (every plane; chroma at half the sigma) or RGB (every colour
                    * channel) video, or of the luma to GRAY8 / GRAY16_LE.
                    *
                    *     gst-launch-1.0 striatesrc ! video/x-raw,format=I420 ! striateblur sigma=8 ! videoconvert ! autovideosink
                    */
                   {"Striate Gaussian blur", "Filter/Effect/Video",
                    "Gaussian blur: direct, repeated boxes or recursive (constant time)", true}});
    all.push_back(
        {"gabor", "Gabor filter or orientation bank (docs/algorithms.md 3)", GaborSpec{},
         {field<&GaborSpec::sigma>("sigma", "Sigma", "Standard deviation of the Gaussian envelope, in pixels", kMinSigma,
                                   kMaxSigma),
          field<&GaborSpec::wavelength>("wavelength", "Wavelength", "Wavelength of the carrier, in pixels", kMinWavelength,
                                        kMaxWavelength),
          withUnit(field<&GaborSpec::orientation>("orientation", "Orientation",
                                                  "Direction of the carrier in degrees, from +x toward +y (down)",
                                                  -kMaxOrientationDegrees, kMaxOrientationDegrees),
                   "degrees"),
          field<&GaborSpec::orientations>("orientations", "Orientations",
                                          "Bank size: orientation + 180 k / N; above 1 the output is the maximum magnitude",
                                          1, kMaxOrientations),
          choice<&GaborSpec::output>("output", "Output", "What to output (a bank outputs the magnitude)", kGaborOutputInfo),
          field<&GaborSpec::removeDc>("remove-dc", "Remove DC", "Subtract the filter's response to flat regions"),
          field<&GaborSpec::gain>("gain", "Gain", "Scale of the output before it is written", 0, kMaxGain),
          choice<&GaborSpec::method>("method", "Method", "How the Gabor is computed (method=recursive needs sigma >= 0.5)",
                                     kGaborMethodInfo)},
         {"gabor sigma=4 wavelength=8 orientations=6",
          "gabor sigma=2 wavelength=6 orientation=30 method=direct output=magnitude",
          "gabor sigma=2 wavelength=6 orientation=30 method=direct output=real",
          "gabor sigma=2 wavelength=6 orientation=30 method=direct output=imaginary",
          "gabor sigma=2 wavelength=6 orientation=30 method=direct output=phase",
          "gabor sigma=2 wavelength=6 orientation=30 method=direct output=complex",
          "gabor sigma=4 wavelength=8 orientation=60 method=recursive output=magnitude",
          "gabor sigma=4 wavelength=8 orientation=60 method=recursive output=real",
          "gabor sigma=4 wavelength=8 orientation=60 method=recursive output=imaginary",
          "gabor sigma=4 wavelength=8 orientation=60 method=recursive output=phase",
          "gabor sigma=4 wavelength=8 orientation=60 method=recursive output=complex"},
         {"gabor sigma=4 wavelength=8 orientations=6"},
         /**
          * SECTION:element-striategabor
          *
          * Gabor filtering of the luma: one orientation (magnitude, real, imaginary or phase) or the
          * maximum magnitude over a bank of orientations, as GRAY8 or GRAY16_LE.
          *
          *     gst-launch-1.0 striatesrc scene=grating ! striategabor orientations=6 gain=4 ! videoconvert ! autovideosink
          */
         {"Striate Gabor filter", "Filter/Analyzer/Video",
          "Recursive or direct Gabor filter, single orientation or bank, on the luma", false}});
    all.push_back(
        {"edges", "Edge detection: Canny or Gabor energy (docs/algorithms.md 4.1-4.2)", EdgeSpec{},
         {choice<&EdgeSpec::method>("method", "Method", "Canny, or the local energy of a Gabor bank (steps and lines)",
                                    kEdgeMethodInfo),
          field<&EdgeSpec::sigma>("sigma", "Sigma", "Smoothing (canny) or envelope (gabor) standard deviation, in pixels",
                                  kMinSigma, kMaxSigma),
          field<&EdgeSpec::wavelength>("wavelength", "Wavelength", "Carrier wavelength of the gabor method, in pixels",
                                       kMinWavelength, kMaxWavelength),
          field<&EdgeSpec::orientations>("orientations", "Orientations", "Bank size of the gabor method", 1,
                                         kMaxOrientations),
          field<&EdgeSpec::lowThreshold>("low-threshold", "Low threshold",
                                         "Weak edges: gradient of the unit image (canny) or Gabor energy; <= high-threshold",
                                         0, kMaxThreshold),
          field<&EdgeSpec::highThreshold>("high-threshold", "High threshold", "Strong edges (same units); >= low-threshold",
                                          0, kMaxThreshold),
          choice<&EdgeSpec::output>("output", "Output", "Edge map, edge strength, or edges drawn over the luma",
                                    kEdgeOutputInfo)},
         {"edges", "edges output=strength", "edges output=overlay", "edges method=gabor"},
         {"edges"},
         /**
          * SECTION:element-striateedges
          *
          * Edge detection on the luma (Canny, or Gabor energy), as GRAY8 or GRAY16_LE.
          *
          *     gst-launch-1.0 striatesrc ! video/x-raw,format=NV12,width=1280,height=720 ! striateedges ! videoconvert ! autovideosink
          */
         {"Striate edge detection", "Filter/Analyzer/Video", "Canny or Gabor-energy edges of the luma", false}});
    all.push_back(
        {"threshold", "Adaptive threshold: 1 above the local Gaussian mean less offset (docs/algorithms.md 4.3)",
         ThresholdSpec{},
         {field<&ThresholdSpec::sigma>("sigma", "Sigma", "Standard deviation of the local Gaussian mean, in pixels",
                                       kMinSigma, kMaxSigma),
          field<&ThresholdSpec::offset>("offset", "Offset",
                                        "Subtracted from the local mean, in units of the full range (0..1; may be negative)",
                                        -kMaxThresholdOffset, kMaxThresholdOffset),
          choice<&ThresholdSpec::method>("method", "Method",
                                         "How the local mean is computed (method=recursive needs sigma >= 0.5)",
                                         kBlurMethodInfo)},
         {"threshold sigma=4 offset=0.02", "threshold sigma=2 offset=0.01 method=direct",
          "threshold sigma=6 offset=-0.02 method=boxes", "threshold sigma=8 offset=0.04 method=recursive"},
         {"threshold"},
         /**
          * SECTION:element-striatethreshold
          *
          * Adaptive threshold of the luma (OpenCV's adaptiveThreshold, Gaussian, THRESH_BINARY): 255
          * where a pixel exceeds its local Gaussian mean less the offset, else 0.
          *
          *     gst-launch-1.0 striatesrc scene=text ! striatethreshold sigma=4 offset=0.02 ! videoconvert ! autovideosink
          */
         {"Striate adaptive threshold", "Filter/Analyzer/Video",
          "Binarisation against the local Gaussian mean less an offset", false}});
    // The tables are indexed by the variant's index (stageInfo).
    if (all.size() != std::variant_size_v<Stage>) std::abort();
    for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i].defaults.index() != i) std::abort();
    return all;
}

} // namespace

std::string EnumInfo::nicks(const char* separator) const {
    std::string out;
    for (const Value& v : values) out += (out.empty() ? "" : separator) + std::string(v.nick);
    return out;
}

const EnumInfo::Value* EnumInfo::find(std::string_view nick) const {
    for (const Value& v : values)
        if (nick == v.nick) return &v;
    return nullptr;
}

const EnumInfo::Value* EnumInfo::find(int value) const {
    for (const Value& v : values)
        if (v.value == value) return &v;
    return nullptr;
}

std::string ParamDef::format(const Stage& stage) const {
    const double v = get(stage);
    switch (type) {
    case Type::Number: return formatNumber(v);
    case Type::Integer: return std::to_string(static_cast<int>(v));
    case Type::Boolean: return v != 0 ? "true" : "false";
    case Type::Enum: {
        const EnumInfo::Value* e = values->find(static_cast<int>(v));
        return e ? e->nick : "?";
    }
    }
    return "?";
}

bool ParamDef::parse(std::string_view text, Stage* stage) const {
    std::optional<double> v;
    switch (type) {
    case Type::Number: v = parseDouble(text); break;
    case Type::Integer: v = parseInt(text); break;
    case Type::Boolean: v = parseBool(text); break;
    case Type::Enum:
        if (const EnumInfo::Value* e = values->find(text)) v = e->value;
        break;
    }
    if (v) set(*stage, *v);
    return v.has_value();
}

std::string ParamDef::expected() const {
    switch (type) {
    case Type::Number: return "a number";
    case Type::Integer: return "an integer";
    case Type::Boolean: return "true or false";
    case Type::Enum: return "one of " + values->nicks(", ");
    }
    return "?";
}

const ParamDef* StageInfo::param(std::string_view key) const {
    for (const ParamDef& p : params)
        if (key == p.name) return &p;
    return nullptr;
}

const std::vector<StageInfo>& stageInfos() {
    static const std::vector<StageInfo> all = makeStageInfos();
    return all;
}

const StageInfo& stageInfo(const Stage& stage) { return stageInfos()[stage.index()]; }

const StageInfo* findStage(std::string_view name) {
    for (const StageInfo& s : stageInfos())
        if (name == s.name) return &s;
    return nullptr;
}

std::string stageNames() {
    const auto& all = stageInfos();
    std::string out;
    for (std::size_t i = 0; i < all.size(); ++i)
        out += (i == 0 ? "" : i + 1 == all.size() ? " or " : ", ") + std::string(all[i].name);
    return out;
}

std::string describeStages(int indent) {
    std::size_t longest = 0;
    for (const StageInfo& s : stageInfos()) longest = std::max(longest, std::string_view(s.name).size());
    const std::size_t column = indent + longest + 2, wrap = 100;
    std::string out;
    for (const StageInfo& s : stageInfos()) {
        std::string line = std::string(indent, ' ') + s.name;
        line.resize(column, ' ');
        for (const ParamDef& p : s.params) {
            std::string item = std::string(p.name) + "=";
            switch (p.type) {
            case ParamDef::Type::Number:
            case ParamDef::Type::Integer: item.append("[").append(rangeEnd(p.min)).append("..").append(rangeEnd(p.max)).append("]"); break;
            case ParamDef::Type::Boolean: item += "true|false"; break;
            case ParamDef::Type::Enum: item += p.values->nicks("|"); break;
            }
            if (*p.unit) item += std::string(" ") + p.unit;
            item += " (" + p.format(s.defaults) + ")";
            if (line.size() > column && line.size() + 1 + item.size() > wrap) {
                out += line + "\n";
                line = std::string(column, ' ');
            } else if (line.size() > column) {
                line += " ";
            }
            line += item;
        }
        out += line + "\n";
    }
    return out;
}

} // namespace striate
