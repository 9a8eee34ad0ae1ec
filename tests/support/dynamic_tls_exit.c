/* LeakSanitizer at exit with threads alive whose dynamic TLS blocks start 16 bytes into a page,
 * the layout that crashed the tracer of LLVM up to 16 (cmake/asan_defaults.c, docs/testing.md).
 * Each thread allocates a different number of small blocks before its TLS block, so that some TLS
 * block lands at page offset 16; it then keeps an allocation whose only reference is in that TLS
 * block. Exit 0 and no leak report: the tracer survived and still reached what dynamic TLS holds.
 * Prints how many TLS blocks landed at offset 16 (the test needs at least one).
 *   dynamic_tls_exit LIBRARY THREADS */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { kMaxThreads = 512, kMaxPadding = 96 };
static void* (*hold)(void*);
static void* padding[kMaxThreads][kMaxPadding]; /* reachable: no leak of their own */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int started, atOffset16;

static void* run(void* arg) {
    const intptr_t i = (intptr_t)arg;
    for (int k = 0; k < i % kMaxPadding; ++k) padding[i][k] = malloc(16);
    const uintptr_t block = (uintptr_t)hold(malloc(100));
    pthread_mutex_lock(&lock);
    atOffset16 += block % 4096 == 16;
    ++started;
    pthread_cond_signal(&changed);
    pthread_mutex_unlock(&lock);
    for (;;) pause();
    return NULL;
}

int main(int argc, char** argv) {
    if (argc != 3) return 2;
    void* lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    *(void**)&hold = dlsym(lib, "hold"); /* POSIX's way: ISO C has no object-to-function cast */
    const int threads = atoi(argv[2]);
    if (!hold || threads < 1 || threads > kMaxThreads) return 2;
    for (intptr_t i = 0; i < threads; ++i) {
        pthread_t t;
        if (pthread_create(&t, NULL, run, (void*)i) != 0) return 2;
        pthread_mutex_lock(&lock);
        while (started <= i) pthread_cond_wait(&changed, &lock);
        pthread_mutex_unlock(&lock);
    }
    printf("%d threads alive at exit, %d dynamic TLS blocks at page offset 16\n", threads, atOffset16);
    return 0;
}
