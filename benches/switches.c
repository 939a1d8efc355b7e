/* Two threads each writing their own counter N times (argv[1], default
 * 20000): every write is a scheduling point, no operation ever blocks, so
 * the number of thread switches is decided by the schedule alone. */
#include <pthread.h>
#include <stdlib.h>

long counter[2];
int rounds = 20000;

static void *worker(void *arg) {
    long me = (long)arg;
    for (int i = 0; i < rounds; i++)
        counter[me] = counter[me] + 1;
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1) rounds = atoi(argv[1]);
    pthread_t t;
    pthread_create(&t, 0, worker, (void *)1L);
    worker((void *)0L);
    pthread_join(t, 0);
    return 0;
}
