/* The instruction counter's own check (scripts/cpu_estimate.py): THREADS threads each run a loop
 * of exactly 2 instructions (a subtract that sets the flags, a branch back while not zero) N
 * times, so between a run with N and one with 2N each of those threads must count exactly 2N
 * more instructions, and the main thread none.
 *   calibrate N THREADS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_barrier_t all_started;

static void *spin(void *arg) {
    unsigned long n = *(const unsigned long *)arg;
    pthread_barrier_wait(&all_started);
#if defined(__aarch64__)
    __asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#elif defined(__arm__)
    __asm__ volatile("1: subs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
#else
#error "calibrate: an ARM guest only"
#endif
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: calibrate N THREADS\n");
        return 2;
    }
    unsigned long n = strtoul(argv[1], NULL, 10);
    int threads = atoi(argv[2]);
    if (n < 1 || threads < 1 || threads > 16) return 2;
    pthread_t t[16];
    /* None exits before all have started: thread i has vCPU index i + 1 in every run (an index
     * freed by an exit would go to the next thread made). */
    pthread_barrier_init(&all_started, NULL, (unsigned)threads + 1);
    for (int i = 0; i < threads; ++i)
        if (pthread_create(&t[i], NULL, spin, &n)) return 1;
    pthread_barrier_wait(&all_started);
    for (int i = 0; i < threads; ++i) pthread_join(t[i], NULL);
    return 0;
}
