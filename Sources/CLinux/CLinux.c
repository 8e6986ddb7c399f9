#define _GNU_SOURCE
#include "CLinux.h"
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

int strata_memfd_create(const char *name) { return memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING); }

int strata_seal_size(int fd) { return fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL); }

int strata_is_initial_thread(void) { return gettid() == getpid(); }
