#define _GNU_SOURCE
#include "reaper.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The reaper runs in a child forked from a threaded process and never execs: async-signal-safe
   calls only, no malloc, buffers on the stack. */

/* The parent pid in /proc/PID/stat (the field after the state, after the command's ')'); -1 when unreadable. */
static pid_t parent_of(const char *pid) {
    char path[64] = "/proc/";
    size_t at = 6;
    for (size_t i = 0; pid[i] != 0 && at < sizeof path - 6; i++) path[at++] = pid[i];
    for (const char *rest = "/stat"; *rest != 0; rest++) path[at++] = *rest;
    path[at] = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char text[1024];
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return -1;
    text[n] = 0;
    char *close_paren = NULL;
    for (char *c = text; *c != 0; c++) if (*c == ')') close_paren = c;
    if (close_paren == NULL || close_paren[1] != ' ' || close_paren[2] == 0 || close_paren[3] != ' ') return -1;
    pid_t parent = 0;
    for (char *c = close_paren + 4; *c >= '0' && *c <= '9'; c++) parent = parent * 10 + (*c - '0');
    return parent;
}

/* SIGKILLs every process whose parent is this one; returns how many it found. */
static int kill_children(void) {
    pid_t self = getpid();
    int found = 0;
    int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return 0;
    char buffer[8192];
    for (;;) {
        long n = syscall(SYS_getdents64, dir, buffer, sizeof buffer);
        if (n <= 0) break;
        for (long offset = 0; offset < n;) {
            struct dirent64 *entry = (struct dirent64 *)(buffer + offset);
            offset += entry->d_reclen;
            if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
            if (parent_of(entry->d_name) != self) continue;
            pid_t pid = 0;
            for (const char *c = entry->d_name; *c >= '0' && *c <= '9'; c++) pid = pid * 10 + (*c - '0');
            kill(pid, SIGKILL);
            found++;
        }
    }
    close(dir);
    return found;
}

/* Reaps every child that ended; reports the program's wait status on `status_fd` once. Returns
   whether no child is left. */
static int reap(pid_t program, int status_fd, int *reported) {
    for (;;) {
        int status = 0;
        pid_t ended = waitpid(-1, &status, WNOHANG | __WALL);
        if (ended > 0) {
            if (ended == program && !*reported) {
                ssize_t ignored = write(status_fd, &status, sizeof status);
                (void)ignored;
                *reported = 1;
            }
            continue;
        }
        if (ended < 0 && errno == EINTR) continue;
        return ended < 0 && errno == ECHILD;
    }
}

/* Kills the whole tree below: each process that dies leaves its children to this one (their
   subreaper), so rounds of killing this process's children end every descendant. */
static void kill_tree(pid_t program, int status_fd, int *reported) {
    const struct timespec pause = { 0, 2 * 1000 * 1000 };
    for (int round = 0; round < 5000; round++) {
        if (!*reported) kill(-program, SIGKILL);  /* its group, while its pid cannot have been reused */
        int found = kill_children();
        if (reap(program, status_fd, reported) && found == 0) return;
        nanosleep(&pause, NULL);
    }
}

void loopl_reaper_run(pid_t program, int guard_fd, int status_fd) {
    int reported = 0;
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    int wake = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
    for (;;) {
        if (reap(program, status_fd, &reported) && reported) _exit(0);
        struct pollfd fds[2] = { { guard_fd, POLLIN, 0 }, { wake, POLLIN, 0 } };
        int n = poll(fds, wake >= 0 ? 2 : 1, wake >= 0 ? -1 : 50);
        if (n < 0) continue;
        if (fds[0].revents != 0) {
            /* The host ended (every write end of the guard closed) or let the child go. */
            kill_tree(program, status_fd, &reported);
            _exit(0);
        }
        if (wake >= 0 && fds[1].revents != 0) {
            struct signalfd_siginfo info;
            while (read(wake, &info, sizeof info) == (ssize_t)sizeof info) {}
        }
    }
}
