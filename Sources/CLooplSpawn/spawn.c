#define _GNU_SOURCE
#include "loopl_spawn.h"
#include "reaper.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct request {
    const char *path;
    char *const *argv;
    char *const *envp;
    const char *cwd;
    int fds[3];
    struct loopl_child child;
    int result;
    int done;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static struct request *pending = NULL;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int spawner_error = 0;

/* In the child between fork and exec: async-signal-safe calls only. */
static void become_child(const struct request *r, pid_t parent, int report) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    /* Its own process group: the terminal's Ctrl-C does not reach it, and its descendants can be ended together. */
    setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int s = 1; s < 32; s++) {
        if (s != SIGKILL && s != SIGSTOP) signal(s, SIG_DFL);
    }
    for (int i = 0; i < 3; i++) {
        int fd = r->fds[i];
        if (fd < 0) fd = open("/dev/null", i == 0 ? O_RDONLY : O_WRONLY);
        if (fd < 0 || dup2(fd, i) < 0) goto fail;
    }
    if (r->cwd != NULL && chdir(r->cwd) != 0) goto fail;
    for (int fd = 3; fd < 1024; fd++) {
        if (fd != report) close(fd);
    }
    syscall(SYS_close_range, 1024, ~0U, 0);
    execve(r->path, r->argv, r->envp);
fail:;
    int code = errno;
    ssize_t ignored = write(report, &code, sizeof code);
    (void)ignored;
    _exit(127);
}

/* In the reaper between fork and its loop: forks the program, sends its pid on `status`, and
   keeps nothing of the host's but the guard's read end and `status`. Signals stay blocked (the
   spawner thread's mask): a Ctrl-C or a SIGTERM to the host's group leaves it be. */
static void become_reaper(const struct request *r, int report, int status, int guard) {
    setpgid(0, 0);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    prctl(PR_SET_NAME, "loopl-reaper");  /* ProcessWatch.reaperName */
    pid_t self = getpid();
    pid_t program = fork();
    if (program == 0) become_child(r, self, report);
    if (program < 0) {
        int code = errno;
        ssize_t ignored = write(report, &code, sizeof code);
        (void)ignored;
        _exit(127);
    }
    /* Both sides set the group, so it is in place whichever runs first. */
    setpgid(program, program);
    ssize_t ignored = write(status, &program, sizeof program);
    (void)ignored;
    int null = open("/dev/null", O_RDWR);
    for (int i = 0; i < 3; i++) dup2(null, i);
    for (int fd = 3; fd < 1024; fd++) {
        if (fd != status && fd != guard) close(fd);
    }
    syscall(SYS_close_range, 1024, ~0U, 0);
    loopl_reaper_run(program, guard, status);
}

static void close_pair(int fds[2]) {
    close(fds[0]);
    close(fds[1]);
}

/* Forks the reaper, which forks and execs the program; the report pipe (close-on-exec) carries
   errno when exec fails, the status pipe the program's pid and then its wait status. */
static int start(struct request *r) {
    int report[2], status[2], guard[2];
    if (pipe2(report, O_CLOEXEC) != 0) return -errno;
    if (pipe2(status, O_CLOEXEC) != 0) {
        int code = errno;
        close_pair(report);
        return -code;
    }
    if (pipe2(guard, O_CLOEXEC) != 0) {
        int code = errno;
        close_pair(report);
        close_pair(status);
        return -code;
    }
    pid_t reaper = fork();
    if (reaper < 0) {
        int code = errno;
        close_pair(report);
        close_pair(status);
        close_pair(guard);
        return -code;
    }
    if (reaper == 0) become_reaper(r, report[1], status[1], guard[0]);
    setpgid(reaper, reaper);
    close(report[1]);
    close(status[1]);
    close(guard[0]);
    int code = 0;
    ssize_t n;
    do { n = read(report[0], &code, sizeof code); } while (n < 0 && errno == EINTR);
    close(report[0]);
    pid_t program = 0;
    if (n != (ssize_t)sizeof code) {
        ssize_t got;
        do { got = read(status[0], &program, sizeof program); } while (got < 0 && errno == EINTR);
        if (got != (ssize_t)sizeof program || program <= 0) code = ECHILD;
    }
    if (code != 0) {
        /* The guard's end closes: the reaper ends what is left and exits. */
        close(status[0]);
        close(guard[1]);
        while (waitpid(reaper, NULL, 0) < 0 && errno == EINTR) {}
        return -code;
    }
    r->child.pid = program;
    r->child.reaper = reaper;
    r->child.status_fd = status[0];
    r->child.guard_fd = guard[1];
    return 0;
}

/* The spawner thread: lives as long as the process, so PR_SET_PDEATHSIG fires only when the process ends. */
static void *spawner(void *unused) {
    (void)unused;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pthread_mutex_lock(&lock);
    for (;;) {
        while (pending == NULL || pending->done) pthread_cond_wait(&changed, &lock);
        struct request *r = pending;
        pthread_mutex_unlock(&lock);
        int result = start(r);
        pthread_mutex_lock(&lock);
        r->result = result;
        r->done = 1;
        pthread_cond_broadcast(&changed);
    }
    return NULL;
}

static void start_spawner(void) {
    pthread_t thread;
    spawner_error = pthread_create(&thread, NULL, spawner, NULL);
    if (spawner_error == 0) pthread_detach(thread);
}

int loopl_spawn(const char *path, char *const argv[], char *const envp[], const char *cwd,
                int in_fd, int out_fd, int err_fd, struct loopl_child *child) {
    pthread_once(&once, start_spawner);
    if (spawner_error != 0) return -spawner_error;
    struct request r = { path, argv, envp, cwd, { in_fd, out_fd, err_fd }, { 0, 0, -1, -1 }, 0, 0 };
    pthread_mutex_lock(&lock);
    while (pending != NULL) pthread_cond_wait(&changed, &lock);
    pending = &r;
    pthread_cond_broadcast(&changed);
    while (!r.done) pthread_cond_wait(&changed, &lock);
    pending = NULL;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
    if (r.result == 0) *child = r.child;
    return r.result;
}

int loopl_pipe(int fds[2]) {
    return pipe2(fds, O_CLOEXEC) == 0 ? 0 : -errno;
}
