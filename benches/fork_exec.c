/* The limit for one execution, on this machine: the cost of a bare
 * fork()+_exit+waitpid; of a fork() whose child creates and joins one thread
 * before _exit (what the kernel and the C library charge any two-thread
 * program, with no tool at all); and of a fork()+execve of a trivial binary
 * + waitpid.
 *
 * Usage: fork_exec ITERATIONS [TRIVIAL_BINARY|- [bare|thread]]
 * Prints "fork_wait_us <median µs>", "fork_thread_wait_us <median µs>" and,
 * with a binary, "fork_exec_wait_us <median µs>" (medians over 5 batches of
 * ITERATIONS, the kinds interleaved batch by batch); `bare` or `thread` runs
 * only that kind (for counting its system calls and faults). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum child { BARE, THREAD, EXEC };

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void *returns(void *arg) { return arg; }

static double batch(int n, enum child kind, const char *exe) {
    double t0 = now_us();
    for (int i = 0; i < n; i++) {
        pid_t p = fork();
        if (p == 0) {
            if (kind == THREAD) {
                pthread_t t;
                if (pthread_create(&t, NULL, returns, NULL) == 0) pthread_join(t, NULL);
            } else if (kind == EXEC) {
                char *argv[] = {(char *)exe, NULL};
                char *envp[] = {NULL};
                execve(exe, argv, envp);
            }
            _exit(0);
        }
        if (p < 0) { perror("fork"); exit(1); }
        int st;
        waitpid(p, &st, 0);
    }
    return (now_us() - t0) / n;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    const char *trivial = argc > 2 && strcmp(argv[2], "-") ? argv[2] : NULL;
    const char *only = argc > 3 ? argv[3] : "";
    int bare = strcmp(only, "thread") != 0, thread = strcmp(only, "bare") != 0;
    double f[5] = {0}, t[5] = {0}, e[5] = {0};
    for (int k = 0; k < 5; k++) {
        if (bare) f[k] = batch(n, BARE, NULL);
        if (thread) t[k] = batch(n, THREAD, NULL);
        e[k] = trivial ? batch(n / 4 + 1, EXEC, trivial) : 0;
    }
    qsort(f, 5, sizeof f[0], cmp);
    qsort(t, 5, sizeof t[0], cmp);
    qsort(e, 5, sizeof e[0], cmp);
    if (bare) printf("fork_wait_us %.1f\n", f[2]);
    if (thread) printf("fork_thread_wait_us %.1f\n", t[2]);
    if (trivial) printf("fork_exec_wait_us %.1f\n", e[2]);
    return 0;
}
