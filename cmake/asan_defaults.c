/* AddressSanitizer's defaults for the sanitizer build's executables (cmake/Warnings.cmake);
 * ASAN_OPTIONS still overrides each one.
 *
 * intercept_tls_get_addr=0: LeakSanitizer's tracer crashed at exit ("Tracer caught signal 11:
 * addr=0x1500") in runs of striate selftest and test_gles_es3 on some machines, every test
 * passed. The cause is the __tls_get_addr interceptor of LLVM up to 16 (Debian 12's clang is 14),
 * not Striate: when a thread's dynamic TLS block (Mesa's and LLVM's libraries, dlopen'd by EGL,
 * have one per llvmpipe thread) starts 16 bytes into a page, it takes the block for one with the
 * header of glibc 2.19-2.24 and records the two words before it as the block's address and size.
 * Since glibc 2.25 there is no such header; glibc mallocs the block, and a heap block lands there
 * by chance, so the tracer scans a range made of another allocation's bytes and faults. Where the
 * blocks land depends on the allocations before them (the environment, the GLES version), so one
 * machine crashed 4 times in 4 and another never (google/sanitizers#1322; docs/testing.md has a
 * 40-line program that crashes every time). Without the interceptor LeakSanitizer still finds
 * every dynamic TLS block: glibc mallocs it and the thread's static TLS points to it through the
 * DTV, so it is scanned as heap, reached from a root. */
const char* __asan_default_options(void);
const char* __asan_default_options(void) { return "intercept_tls_get_addr=0"; }
