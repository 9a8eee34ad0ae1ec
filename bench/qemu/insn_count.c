/* A qemu-user plugin (QEMU_PLUGIN_VERSION 1, qemu 7.2's qemu-plugin.h) that counts the guest
 * instructions each thread executes, for the cpu backend's estimates on the Pi's cores
 * (scripts/cpu_estimate.py, docs/boards.md "The boards' own cores").
 *
 *   qemu-aarch64 -plugin insn_count.so,out=FILE -L SYSROOT PROGRAM ...
 *
 * At exit FILE gets one line per guest thread that ran, "thread INDEX INSTRUCTIONS", and a last
 * line "total INSTRUCTIONS". A thread is qemu's vCPU index: linux-user gives each guest thread
 * the lowest free one, so a thread that exits can hand its index to a later one; the counts add.
 * Each translated block adds its instruction count to its thread's slot when it runs (a callback,
 * not an inline add: an inline add goes to one counter that every thread races on). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

enum { kMaxThreads = 1024 };
static uint64_t counts[kMaxThreads];
static unsigned highest; /* highest vCPU index seen, + 1 */
static char out_path[4096];

static void on_block(unsigned int vcpu, void *instructions) {
    if (vcpu >= kMaxThreads) abort(); /* a count that would be wrong: stop rather than drop it */
    counts[vcpu] += (uint64_t)(uintptr_t)instructions;
    if (vcpu + 1 > highest) highest = vcpu + 1; /* only grows; a race writes the same or a larger value */
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, QEMU_PLUGIN_CB_NO_REGS,
                                         (void *)(uintptr_t)qemu_plugin_tb_n_insns(tb));
}

static void write_counts(qemu_plugin_id_t id, void *data) {
    (void)id;
    (void)data;
    FILE *f = fopen(out_path, "w");
    if (!f) {
        qemu_plugin_outs("insn_count: cannot write the out= file\n");
        return;
    }
    uint64_t total = 0;
    for (unsigned i = 0; i < highest; ++i) {
        if (!counts[i]) continue;
        fprintf(f, "thread %u %" PRIu64 "\n", i, counts[i]);
        total += counts[i];
    }
    fprintf(f, "total %" PRIu64 "\n", total);
    fclose(f);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
    (void)info;
    for (int i = 0; i < argc; ++i) {
        if (strncmp(argv[i], "out=", 4) == 0 && strlen(argv[i] + 4) < sizeof out_path) {
            strcpy(out_path, argv[i] + 4);
        } else {
            fprintf(stderr, "insn_count: unknown argument '%s' (out=FILE)\n", argv[i]);
            return 1;
        }
    }
    if (!out_path[0]) {
        fprintf(stderr, "insn_count: out=FILE is required\n");
        return 1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, write_counts, NULL);
    return 0;
}
