// Linux calls that Swift's Glibc module leaves out: some need _GNU_SOURCE (defined only in
// CLinux.c, since defining it here would change glibc's types under Swift), one is variadic.
#pragma once
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

/// memfd_create(2) with MFD_CLOEXEC, and MFD_ALLOW_SEALING when `allow_sealing` is non-zero.
int strata_memfd_create(const char *name, int allow_sealing);

/// Seals a memfd against shrinking (F_SEAL_SHRINK | F_SEAL_SEAL), so a peer mapping it cannot
/// be made to fault; fcntl is variadic, so Swift cannot call it directly.
int strata_seal_size(int fd);

/// Processors this process may run on (sched_getaffinity), or the online count if that fails.
int strata_active_processor_count(void);

/// Whether the calling thread is the process's initial thread (gettid() == getpid()).
int strata_is_initial_thread(void);

/// pipe2(2) with O_CLOEXEC and O_NONBLOCK on both ends, so no child inherits a transfer's pipe.
int strata_pipe(int fds[2]);

/// Stops LeakSanitizer from reporting what the calling thread allocates until the matching
/// strata_leak_checking_resume, when the process runs under it; does nothing otherwise.
void strata_leak_checking_pause(void);

/// Ends the calling thread's latest strata_leak_checking_pause.
void strata_leak_checking_resume(void);
