#pragma once

// Whether this test binary runs under a sanitizer: GCC says so with __SANITIZE_ADDRESS__ /
// __SANITIZE_THREAD__, clang through __has_feature (the sanitizer build is clang's, the
// ThreadSanitizer build GCC's).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STRIATE_UNDER_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define STRIATE_UNDER_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(STRIATE_UNDER_ASAN)
#define STRIATE_UNDER_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__) && !defined(STRIATE_UNDER_TSAN)
#define STRIATE_UNDER_TSAN 1
#endif
