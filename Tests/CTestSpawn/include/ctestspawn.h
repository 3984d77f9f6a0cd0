#ifndef CTESTSPAWN_H
#define CTESTSPAWN_H

#include <sys/types.h>

/// Starts `path` with `argv` and `envp` (both NULL-terminated; `envp` NULL: this process's environment) through
/// posix_spawn, in `cwd` (NULL: this process's), with descriptors 0, 1 and 2 taken from `stdin_fd`, `stdout_fd` and
/// `stderr_fd` (-1: inherited), every other descriptor closed, every signal at its default and none blocked, in a
/// process group of its own.
///
/// For the tests' `TestProcess`: Foundation's `Process.run()` on Linux (Swift 6.3.1) lists /proc/self/fd with a
/// 256-byte copy of each entry's name, which can read past the directory buffer and crash the test process
/// (swift-corelibs-foundation pull request 5472).
///
/// Returns 0 and sets `*pid`, or an errno value.
int suite_test_spawn(
    const char *path, char *const argv[], char *const envp[], const char *cwd, int stdin_fd, int stdout_fd,
    int stderr_fd, pid_t *pid);

#endif
