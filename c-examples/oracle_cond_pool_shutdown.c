/* A two-worker pool given one job, then shut down with a broadcast (with
 * the argument `signal`: a signal per worker). A worker waits on a
 * condition variable until there is a job or the pool shuts down; after
 * its job it takes the mutex again to report it done. A worker asleep
 * when the shutdown wake-up comes re-acquires the mutex before or after
 * the other worker's report, although the wake-up does not depend on that
 * report: both orders are behaviours of their own. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cond = PTHREAD_COND_INITIALIZER;
static int queued, shutting_down, jobs_done;

static void *worker(void *arg) {
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&m);
        while (queued == 0 && !shutting_down)
            pthread_cond_wait(&work_cond, &m);
        if (queued == 0) {
            pthread_mutex_unlock(&m);
            return 0;
        }
        queued--;
        pthread_mutex_unlock(&m);
        pthread_mutex_lock(&m);
        jobs_done++;
        pthread_mutex_unlock(&m);
    }
}

int main(int argc, char **argv) {
    int by_signal = argc > 1 && strcmp(argv[1], "signal") == 0;
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], 0, worker, 0);
    pthread_mutex_lock(&m);
    queued = 1;
    pthread_cond_signal(&work_cond);
    pthread_mutex_unlock(&m);
    pthread_mutex_lock(&m);
    shutting_down = 1;
    pthread_mutex_unlock(&m);
    if (by_signal) {
        pthread_cond_signal(&work_cond);
        pthread_cond_signal(&work_cond);
    } else {
        pthread_cond_broadcast(&work_cond);
    }
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], 0);
    printf("%d job done\n", jobs_done);
    return 0;
}
