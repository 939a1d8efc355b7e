/* Cost of an instrumented access with no thread switch: one thread loads and
 * stores a global array in a loop and times itself with the real monotonic
 * clock (a raw system call, which the runtime passes through; its own clock
 * functions are virtual). Writes "<accesses> <ns per access>" to argv[1];
 * argv[2] is the number of rounds over the array (default 500). Run it plain,
 * instrumented on its own, and under reach-native. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define N 1024

int data[N];

static double now_ns(void)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int rounds = argc > 2 ? atoi(argv[2]) : 500;
    double start = now_ns();
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < N; i++)
            data[i] += r; /* one load and one store */
    double end = now_ns();
    long accesses = 2L * N * rounds;
    FILE *out = argc > 1 ? fopen(argv[1], "w") : stdout;
    if (out == NULL)
        return 1;
    fprintf(out, "%ld %.2f\n", accesses, (end - start) / accesses);
    return data[7] == (long)(rounds - 1) * rounds / 2 ? 0 : 2;
}
