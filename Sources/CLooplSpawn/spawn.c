#define _GNU_SOURCE
#include "loopl_spawn.h"

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
    pid_t result;
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

/* Forks and execs; the report pipe (close-on-exec) carries errno when exec fails. */
static pid_t start(const struct request *r) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return -errno;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int code = errno;
        close(report[0]);
        close(report[1]);
        return -code;
    }
    if (pid == 0) become_child(r, parent, report[1]);
    /* Both sides set the group, so it is in place whichever runs first. */
    setpgid(pid, pid);
    close(report[1]);
    int code = 0;
    ssize_t n;
    do { n = read(report[0], &code, sizeof code); } while (n < 0 && errno == EINTR);
    close(report[0]);
    if (n == (ssize_t)sizeof code) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
        return -code;
    }
    return pid;
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
        pid_t result = start(r);
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

pid_t loopl_spawn(const char *path, char *const argv[], char *const envp[], int in_fd, int out_fd, int err_fd) {
    return loopl_spawn_in(path, argv, envp, NULL, in_fd, out_fd, err_fd);
}

pid_t loopl_spawn_in(const char *path, char *const argv[], char *const envp[], const char *cwd,
                     int in_fd, int out_fd, int err_fd) {
    pthread_once(&once, start_spawner);
    if (spawner_error != 0) return -spawner_error;
    struct request r = { path, argv, envp, cwd, { in_fd, out_fd, err_fd }, 0, 0 };
    pthread_mutex_lock(&lock);
    while (pending != NULL) pthread_cond_wait(&changed, &lock);
    pending = &r;
    pthread_cond_broadcast(&changed);
    while (!r.done) pthread_cond_wait(&changed, &lock);
    pending = NULL;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
    return r.result;
}

int loopl_pipe(int fds[2]) {
    return pipe2(fds, O_CLOEXEC) == 0 ? 0 : -errno;
}
