#include "pipeline/enums.h"

#include <mutex>

#include "core/backend.h"
#include "sensors/synthetic_camera.h"

GType gst_striate_enum_get_type(const striate::EnumInfo& info) {
    static std::mutex mutex;
    std::lock_guard lock(mutex);
    if (GType type = g_type_from_name(info.typeName)) return type;
    // GLib keeps the array for the process: allocated once per type, never freed.
    auto* values = new GEnumValue[info.values.size() + 1];
    std::size_t n = 0;
    for (const auto& v : info.values)
        if (v.value != info.hidden) values[n++] = {v.value, v.description, v.nick};
    values[n] = {0, nullptr, nullptr};
    return g_enum_register_static(info.typeName, values);
}

GType gst_striate_backend_get_type() {
    static const striate::EnumInfo info = striate::enumInfo("GstStriateBackend", striate::kBackendKinds);
    return gst_striate_enum_get_type(info);
}

GType gst_striate_scene_get_type() {
    static const striate::EnumInfo info = striate::enumInfo("GstStriateScene", striate::sensors::kScenes);
    return gst_striate_enum_get_type(info);
}
