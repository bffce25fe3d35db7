#define _GNU_SOURCE
#include "loopl_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int loopl_open_beneath(int dirfd, const char *path, int flags) {
#ifdef SYS_openat2
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (unsigned long long)(unsigned int)flags;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
    return fd < 0 ? -errno : (int)fd;
#else
    (void)dirfd;
    (void)path;
    (void)flags;
    return -ENOSYS;
#endif
}

int loopl_o_path(void) { return O_PATH; }
