/* The Raspberry Pi 5's GPU identity (V3D 7.1) over Mesa's v3d noop DRM shim, whose GET_PARAM
 * answers are a V3D 4.2's (docs/boards.md, "The real Pi GPU compilers"). Preloaded in front of
 * libv3d_noop_drm_shim.so: every ioctl goes on to the shim, and the answers for the three
 * identity registers Mesa decodes the version and the QPU count from are rewritten.
 *
 * Mesa (src/broadcom/common/v3d_device_info.c) reads: major = CORE0_IDENT0 bits 24..31, minor =
 * CORE0_IDENT1 bits 0..3 (version = 10 major + minor), slices = IDENT1 bits 4..7, QPUs per slice =
 * IDENT1 bits 8..11, VPM size = IDENT1 bits 28..31 x 8 KiB, and the revision from HUB_IDENT3 bits
 * 0..7. Known: 7.1 is the Pi 5's version (Mesa's v3d 7.1 support names BCM2712). Assumed, not read
 * off a Pi 5: the other fields keep the 4.2 shim's values (2 slices x 4 QPUs, 64 KiB VPM,
 * revision 0). They size compute dispatches and the VPM, not the shaders' register allocation.
 * Built by scripts/pi_gpu.sh with the arm64 cross compiler. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <drm/v3d_drm.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/ioctl.h>

int ioctl(int fd, unsigned long request, ...) {
    static int (*next)(int, unsigned long, ...);
    va_list ap;
    va_start(ap, request);
    void* arg = va_arg(ap, void*);
    va_end(ap);
    if (!next) next = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
    const int ret = next(fd, request, arg);
    if (ret == 0 && request == DRM_IOCTL_V3D_GET_PARAM) {
        struct drm_v3d_get_param* p = arg;
        switch (p->param) {
        case DRM_V3D_PARAM_V3D_CORE0_IDENT0: p->value = (p->value & 0x00ffffffu) | (7u << 24); break;
        case DRM_V3D_PARAM_V3D_CORE0_IDENT1: p->value = (p->value & ~(uint64_t)0xf) | 1u; break;
        default: break;
        }
    }
    return ret;
}
