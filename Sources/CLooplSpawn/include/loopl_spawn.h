#ifndef LOOPL_SPAWN_H
#define LOOPL_SPAWN_H

#include <sys/types.h>

/// Starts `path` with `argv` and `envp` (NULL-terminated). The child's standard input, output
/// and error become `in_fd`, `out_fd` and `err_fd`; every other descriptor is closed in it.
/// The child is killed (SIGKILL) when this process ends, however it ends: the fork happens on a
/// thread that lives as long as the process, so the parent-death signal is never fired early.
/// Returns the child's pid, or -errno when it could not be started (exec failures included).
pid_t loopl_spawn(const char *path, char *const argv[], char *const envp[],
                  int in_fd, int out_fd, int err_fd);

/// As loopl_spawn, with the child starting in the folder `cwd` (NULL: this process's folder).
pid_t loopl_spawn_in(const char *path, char *const argv[], char *const envp[], const char *cwd,
                     int in_fd, int out_fd, int err_fd);

/// Creates a pipe whose two ends are closed on exec. Returns 0, or -errno.
int loopl_pipe(int fds[2]);

/// Opens `path` relative to the folder `dirfd` with `flags` (no O_CREAT), resolving every part
/// of it beneath that folder: `..` past it, absolute paths and symbolic links that lead out of
/// it, and magic links (as in /proc) all fail. Returns the descriptor, or -errno: -EXDEV for a
/// way out, -ELOOP for too many links, -EAGAIN for a race the kernel declined to judge, and
/// -ENOSYS (or -E2BIG) where the kernel has no openat2.
int loopl_open_beneath(int dirfd, const char *path, int flags);

/// The O_PATH open flag (a descriptor that only names a file), which C headers declare only
/// with _GNU_SOURCE.
int loopl_o_path(void);

/* Makes each signal in `numbers` write its number, as one byte, to a pipe instead of acting; returns
   the pipe's read end (close-on-exec), or -1. The handler is installed before this returns, so
   no signal is lost to a default action after it. Once per process. */
int loopl_signal_pipe(const int *numbers, int count);

#endif
