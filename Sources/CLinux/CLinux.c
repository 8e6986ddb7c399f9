#define _GNU_SOURCE
#include "CLinux.h"
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

int strata_memfd_create(const char *name, int allow_sealing) {
    return memfd_create(name, MFD_CLOEXEC | (allow_sealing ? MFD_ALLOW_SEALING : 0));
}

int strata_seal_size(int fd) { return fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL); }

int strata_is_initial_thread(void) { return gettid() == getpid(); }

int strata_active_processor_count(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}

int strata_pipe(int fds[2]) {
    return pipe2(fds, O_CLOEXEC | O_NONBLOCK);
}

// Weak, so that they are null unless LeakSanitizer's runtime (part of ASan's) is linked in.
extern void __lsan_disable(void) __attribute__((weak));
extern void __lsan_enable(void) __attribute__((weak));

void strata_leak_checking_pause(void) {
    if (__lsan_disable) __lsan_disable();
}

void strata_leak_checking_resume(void) {
    if (__lsan_enable) __lsan_enable();
}
