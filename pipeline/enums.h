#pragma once

#include <glib-object.h>

#include "core/backend.h"
#include "core/spec.h"

// GEnum types of the element properties, with the nicks of the chain syntax (core/spec.h).
GType gst_striate_backend_get_type();
GType gst_striate_blur_method_get_type();
GType gst_striate_gabor_method_get_type();
GType gst_striate_gabor_output_get_type();
GType gst_striate_edge_method_get_type();
GType gst_striate_edge_output_get_type();
GType gst_striate_scene_get_type();
