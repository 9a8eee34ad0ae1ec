#pragma once

#include <glib-object.h>

#include "core/params.h"

/// The GEnum of a table enumeration (core/params.h), registered on first use under its type
/// name, with its nicks and descriptions; a hidden value (gabor output=complex) is left out.
GType gst_striate_enum_get_type(const striate::EnumInfo& info);
// The enumerations of the base class and of striatesrc, which no stage table holds.
GType gst_striate_backend_get_type();
GType gst_striate_scene_get_type();
