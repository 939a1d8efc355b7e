/* The limit for one execution: cost of a bare fork()+_exit+waitpid and of a
 * fork()+execve of a trivial binary + waitpid, on this machine.
 *
 * Usage: fork_exec ITERATIONS TRIVIAL_BINARY
 * Prints two lines: "fork_wait_us <median µs>" and "fork_exec_wait_us <median µs>"
 * (median over 5 batches of ITERATIONS). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double batch(int n, const char *exe) {
    double t0 = now_us();
    for (int i = 0; i < n; i++) {
        pid_t p = fork();
        if (p == 0) {
            if (exe) {
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
    const char *trivial = argc > 2 ? argv[2] : NULL;
    double f[5], e[5];
    for (int k = 0; k < 5; k++) {
        f[k] = batch(n, NULL);
        e[k] = trivial ? batch(n / 4 + 1, trivial) : 0;
    }
    qsort(f, 5, sizeof f[0], cmp);
    qsort(e, 5, sizeof e[0], cmp);
    printf("fork_wait_us %.1f\n", f[2]);
    if (trivial) printf("fork_exec_wait_us %.1f\n", e[2]);
    return 0;
}
