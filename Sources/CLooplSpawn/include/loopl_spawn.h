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

#endif
