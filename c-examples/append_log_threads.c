/*
 * append_log_threads.c - a program whose shape depends on a file an earlier
 * run left behind.
 *
 * Main appends a line to `run.log` in the working directory; if the log
 * held anything before, it starts 3 threads instead of 2.  Each thread
 * adds its index to a mutex-protected sum.  Run after run (or execution
 * after execution) the log grows, so only the very first execution from a
 * directory without the log starts 2 threads.
 *
 * Usage:    ./append_log_threads              (in a directory without run.log)
 * Expected: no bug.  With `--isolate-files` every execution sees the
 *           directory as it was when the run started (no log): 2 threads,
 *           2 executions, complete, and run.log is still absent afterwards.
 *           Without it the executions see different directories: the run
 *           names run.log as written between executions and does not claim
 *           to be complete.
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int sum;

static void *worker(void *arg)
{
    pthread_mutex_lock(&lock);
    sum += (int)(long)arg;
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void)
{
    FILE *log = fopen("run.log", "a+");
    if (!log) {
        perror("run.log");
        return 2;
    }
    fseek(log, 0, SEEK_END);
    long before = ftell(log);
    fputs("started\n", log);
    fclose(log);
    int n = before > 0 ? 3 : 2;
    pthread_t t[3];
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, worker, (void *)(long)(i + 1));
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    printf("%d threads, sum %d\n", n, sum);
    return 0;
}
