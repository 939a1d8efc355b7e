/*
 * timedwait_poll.c - a main thread that waits for its workers with a
 * timed condition wait in a loop, as liblzma's multithreaded coder does
 * with a timeout: while a worker has not finished, main waits up to a
 * millisecond and checks again.
 *
 * Each of WORKERS workers (default 2) takes the mutex, marks itself done
 * and signals. A timed wait that times out gives the processor away, so
 * the workers take the mutex main released: no false hang, and every
 * execution ends (a wait that times out forever while the workers wait at
 * the mutex is not a behaviour of the program).
 *
 * Usage:    ./timedwait_poll [WORKERS]
 * Expected: no bug; the search completes.
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done = PTHREAD_COND_INITIALIZER;
static int finished;

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    finished++;
    pthread_cond_signal(&done);
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(int argc, char **argv)
{
    int workers = argc > 1 ? atoi(argv[1]) : 2;
    if (workers < 1 || workers > 4)
        return 2;
    pthread_t t[4];
    for (int i = 0; i < workers; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    pthread_mutex_lock(&m);
    while (finished < workers) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 1000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&done, &m, &until);
    }
    pthread_mutex_unlock(&m);
    for (int i = 0; i < workers; i++)
        pthread_join(t[i], NULL);
    assert(finished == workers);
    return 0;
}
