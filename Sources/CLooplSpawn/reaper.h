#ifndef LOOPL_REAPER_H
#define LOOPL_REAPER_H

#include <sys/types.h>

/* The reaper's loop, in the process between the host and a child `program`, which is the
   subreaper of everything the child starts: it reaps what ends and writes the program's wait
   status (an int) to `status_fd`; when `guard_fd` reads end of file (the host died, or let the
   child go) it kills every process below it and exits. It exits as well once the program and
   all it started have ended. Never returns. */
void loopl_reaper_run(pid_t program, int guard_fd, int status_fd) __attribute__((noreturn));

#endif
