# The main job's source (sourced by scripts/camera.sh; tests/scripts/run_test.sh tests it). Sets
#   source   the gst-launch description up to and including its caps filter
#   label    what was chosen, for the log
#   counter_limit  what camera.sh's frame counter adds (the limit of a source without num-buffers)
# choose_source WANT FRAMES WIDTH HEIGHT FPS: WANT is auto, libcamera, v4l2, synthetic or a clip
# file (.webm, .mp4, ... decoded with decodebin). auto: libcamerasrc when libcamera finds a camera,
# else the first V4L2 capture device, else the synthetic camera. Prints why and returns 1 when
# the forced source cannot run.
#
# Sources without num-buffers (libcamerasrc, a clip's decoder) end after FRAMES frames through
# `identity eos-after=FRAMES+1`, which refuses its (FRAMES + 1)th buffer with GST_FLOW_EOS: the
# source then sends EOS. identity counts eos-after down once and passes any buffer after that one
# (a decoder's drain at a clip's end can send one), so camera.sh's frame counter refuses its
# (FRAMES + 1)th too (counter_limit); a decoder holding several frames (B-frames) could drain
# more than that one.

# libcamera_camera [GST_LAUNCH...]: whether libcamerasrc opens a camera and delivers a frame, as
# `cam --capture=1` would (it answers "Could not find any supported camera" in milliseconds when
# there is none, and the pipeline is refused where gstreamer1.0-libcamera is missing).
# libcamerasrc is not a GstBaseSrc and has no num-buffers: identity refuses the first frame with
# GST_FLOW_EOS, which libcamerasrc answers with an EOS event. GST_LAUNCH: the command to run
# (default gst-launch-1.0; tests/pipeline/launch_test.sh passes its emulator's).
libcamera_camera() {
  local launch=("$@")
  [ ${#launch[@]} -gt 0 ] || launch=(gst-launch-1.0)
  timeout 20 "${launch[@]}" -q libcamerasrc ! identity eos-after=1 ! fakesink >/dev/null 2>&1
}

# The first V4L2 node that captures video (a Pi also has codec and ISP nodes, memory to memory).
v4l2_capture_device() {
  local d
  command -v v4l2-ctl >/dev/null 2>&1 || return 1
  for d in /dev/video*; do
    [ -c "$d" ] || continue
    if v4l2-ctl -d "$d" --info 2>/dev/null | awk '/Device Caps/ { caps = 1 } caps && /^\t\tVideo Capture$/ { found = 1 }
                                                    END { exit !found }'; then
      echo "$d"
      return 0
    fi
  done
  return 1
}

# The device mode nearest WIDTH x HEIGHT at FPS, from `v4l2-ctl --list-formats-ext` on stdin:
# prints "FORMAT WIDTH HEIGHT FPS", FORMAT a GStreamer raw format the filters take, or "jpeg"
# when the device offers only MJPEG among them. Nearest: raw before MJPEG, then the pixel count
# closest in ratio, then the frame rate closest.
v4l2_mode() {
  awk -v W="$1" -v H="$2" -v F="$3" '
    function ratio(a, b) { return a > b ? a / b : b / a }
    BEGIN { map["YUYV"] = "YUY2"; map["UYVY"] = "UYVY"; map["YVYU"] = "YVYU"; map["NV12"] = "NV12"
            map["NV21"] = "NV21"; map["YU12"] = "I420"; map["GREY"] = "GRAY8"; map["MJPG"] = "jpeg" }
    /^\t\[[0-9]+\]: / { fourcc = $2; gsub("\047", "", fourcc); format = map[fourcc]; next }
    /Size: Discrete/ { split($3, s, "x"); w = s[1]; h = s[2]; next }
    /Interval: Discrete/ && format != "" && w > 0 {
      fps = $4; gsub("[(]", "", fps); fps += 0
      score = (format == "jpeg") * 1e6 + ratio(w * h, W * H) * 1e3 + (fps > F ? fps - F : F - fps)
      if (best == "" || score < bestScore) { best = format " " w " " h " " fps; bestScore = score }
    }
    END { if (best == "") exit 1; print best }'
}

choose_source() {
  local want=$1 frames=$2 width=$3 height=$4 fps=$5 device mode format w h rate
  counter_limit=""
  # The synthetic camera looks at the photo installed with Striate (a real scene's edges).
  local synthetic="striatesrc num-buffers=$frames scene=photo ! video/x-raw,format=NV12,width=$width,height=$height,framerate=$fps/1"
  case $want in
    auto)
      if libcamera_camera; then want=libcamera
      elif v4l2_capture_device >/dev/null; then want=v4l2
      else
        echo "no camera found (libcamerasrc: none; V4L2: no capture device)"
        want=synthetic
      fi ;;
  esac
  case $want in
    libcamera)
      if ! gst-inspect-1.0 libcamerasrc >/dev/null 2>&1; then
        echo "SOURCE=libcamera: GStreamer has no libcamerasrc (install gstreamer1.0-libcamera)"; return 1
      fi
      libcamera_camera || { echo "SOURCE=libcamera: libcamerasrc finds no camera (libcamera's 'cam --list' lists what it sees)"; return 1; }
      # No framerate in the request: Debian's libcamerasrc 0.0.3 cannot set one, sends caps
      # without it and would be refused. videorate (the snapshots) needs one in the caps:
      # capssetter marks FPS, while the frames keep the camera's own timestamps.
      source="libcamerasrc ! video/x-raw,format=NV12,width=$width,height=$height ! capssetter caps=video/x-raw,framerate=$fps/1"
      source+=" ! identity eos-after=$((frames + 1))"
      counter_limit=" eos-after=$((frames + 1))"
      label="camera (libcamerasrc, its own frame timing)" ;;
    v4l2)
      device=$(v4l2_capture_device) || { echo "SOURCE=v4l2: no V4L2 capture device (/dev/video*; v4l2-ctl from v4l-utils lists them)"; return 1; }
      mode=$(v4l2-ctl -d "$device" --list-formats-ext | v4l2_mode "$width" "$height" "$fps") ||
        { echo "SOURCE=v4l2: $device offers no format the filters take (YUYV, UYVY, YVYU, NV12, NV21, YU12, GREY, MJPG)"; return 1; }
      read -r format w h rate <<<"$mode"
      # A fractional rate (29.97) is left to the device: caps need its exact fraction.
      local r=""
      [ "$rate" = "${rate%.*}" ] && r=",framerate=$rate/1"
      if [ "$format" = jpeg ]; then
        source="v4l2src device=$device num-buffers=$frames ! image/jpeg,width=$w,height=$h$r ! jpegdec"
      else
        source="v4l2src device=$device num-buffers=$frames ! video/x-raw,format=$format,width=$w,height=$h$r"
      fi
      label="camera ($device, $format ${w}x$h at $rate fps)" ;;
    synthetic)
      source=$synthetic
      label="striatesrc scene=photo (the synthetic camera on a real photo), live at $fps fps" ;;
    *)
      [ -f "$want" ] || { echo "SOURCE=$want: not libcamera, v4l2, synthetic or an existing clip file"; return 1; }
      # The clip as decoded, at most FRAMES frames (identity and the frame counter, above).
      source="filesrc location=$(realpath "$want") ! decodebin ! videoconvert ! video/x-raw,format=I420 ! identity eos-after=$((frames + 1))"
      counter_limit=" eos-after=$((frames + 1))"
      label="clip $want" ;;
  esac
}
