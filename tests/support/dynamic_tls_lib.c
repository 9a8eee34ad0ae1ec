/* A library with dynamic TLS (loaded with dlopen, general-dynamic model): glibc mallocs each
 * thread's block of it. Used by dynamic_tls_exit.c. */
static __thread void* held;
void* hold(void* p);
void* hold(void* p) {
    held = p;
    return (void*)&held;
}
