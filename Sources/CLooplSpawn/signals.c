#define _GNU_SOURCE
#include "loopl_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

/* The write end of the pipe that loopl_signal_pipe's handler writes each signal's number to. */
static int loopl_signal_write_fd = -1;

static void loopl_signal_handler(int number) {
    int saved = errno;
    unsigned char byte = (unsigned char)number;
    ssize_t ignored = write(loopl_signal_write_fd, &byte, 1);
    (void)ignored;
    errno = saved;
}

int loopl_signal_pipe(const int *numbers, int count) {
    int fds[2];
    if (loopl_signal_write_fd >= 0 || pipe2(fds, O_CLOEXEC) != 0) return -1;
    fcntl(fds[1], F_SETFL, O_NONBLOCK);
    loopl_signal_write_fd = fds[1];
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = loopl_signal_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (int i = 0; i < count; i++) {
        if (sigaction(numbers[i], &action, NULL) != 0) return -1;
    }
    return fds[0];
}
