#ifndef LOOPL_SPAWN_H
#define LOOPL_SPAWN_H

#include <sys/types.h>

/// A child started by loopl_spawn.
struct loopl_child {
    /// The program's pid; it leads a process group of its own.
    pid_t pid;
    /// The reaper between this process and the program: the subreaper of all the program starts.
    pid_t reaper;
    /// Reads the program's wait status (an int) once it has ended; end of file without it when
    /// the reaper was killed.
    int status_fd;
    /// The guard: when it closes (closed here, or this process ends, however it ends), the reaper
    /// SIGKILLs the program and every process below it, then exits.
    int guard_fd;
};

/// Starts `path` with `argv` and `envp` (NULL-terminated) in the folder `cwd` (NULL: this
/// process's), under a reaper of its own. The program's standard input, output and error become
/// `in_fd`, `out_fd` and `err_fd`; every other descriptor is closed in it. The program and all it
/// starts are killed when this process ends, even by SIGKILL, or when `child->guard_fd` closes;
/// the program also has the parent-death signal (SIGKILL) for its reaper. The reaper is forked on
/// a thread that lives as long as the process. Returns 0 with `child` filled in, or -errno when
/// the program could not be started (exec failures included).
int loopl_spawn(const char *path, char *const argv[], char *const envp[], const char *cwd,
                int in_fd, int out_fd, int err_fd, struct loopl_child *child);

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
