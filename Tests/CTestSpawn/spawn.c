#define _GNU_SOURCE
#include "ctestspawn.h"

#include <signal.h>
#include <spawn.h>
#include <unistd.h>

extern char **environ;

int suite_test_spawn(
    const char *path, char *const argv[], char *const envp[], const char *cwd, int stdin_fd, int stdout_fd,
    int stderr_fd, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int error = posix_spawn_file_actions_init(&actions);
    if (error != 0) return error;
    error = posix_spawnattr_init(&attributes);
    if (error != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return error;
    }
    const int sources[3] = {stdin_fd, stdout_fd, stderr_fd};
    for (int target = 0; target < 3 && error == 0; target++) {
        if (sources[target] >= 0) error = posix_spawn_file_actions_adddup2(&actions, sources[target], target);
    }
    if (error == 0 && cwd != NULL) error = posix_spawn_file_actions_addchdir_np(&actions, cwd);
#ifdef __linux__
    if (error == 0) error = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#else
    if (error == 0) error = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_CLOEXEC_DEFAULT);
#endif
    // As a shell would start it: every signal at its default (the test process ignores SIGPIPE and may block
    // others), none blocked.
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    if (error == 0) error = posix_spawnattr_setsigdefault(&attributes, &all);
    if (error == 0) error = posix_spawnattr_setsigmask(&attributes, &none);
    if (error == 0) {
        short flags = 0;
        posix_spawnattr_getflags(&attributes, &flags);
        error = posix_spawnattr_setflags(
            &attributes, flags | POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    }
    if (error == 0) error = posix_spawnattr_setpgroup(&attributes, 0);
    if (error == 0) error = posix_spawn(pid, path, &actions, &attributes, argv, envp != NULL ? envp : environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return error;
}
