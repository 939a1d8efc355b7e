/* Cost of an instrumented access with no thread switch: one thread loads and
 * stores a global array in a loop and times itself with the real monotonic
 * clock (a raw system call, which the runtime passes through; its own clock
 * functions are virtual). Writes "<accesses> <ns per access>" to argv[1].
 * Run it plain, instrumented on its own, and under reach-native. */
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define N 1024
#define ROUNDS 500

int data[N];

static double now_ns(void)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    double start = now_ns();
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < N; i++)
            data[i] += r; /* one load and one store */
    double end = now_ns();
    long accesses = 2L * N * ROUNDS;
    FILE *out = argc > 1 ? fopen(argv[1], "w") : stdout;
    if (out == NULL)
        return 1;
    fprintf(out, "%ld %.2f\n", accesses, (end - start) / accesses);
    return data[7] == 0 ? 0 : (data[7] == (ROUNDS - 1) * ROUNDS / 2 ? 0 : 2);
}
