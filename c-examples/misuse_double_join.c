/*
 * misuse_double_join.c - joining the same thread twice.
 *
 * main joins the worker and then joins it again.  After the first join the
 * thread ID is no longer valid, so the second call is undefined behaviour
 * (glibc may return an error, hang or crash, depending on whether the
 * thread's descriptor has been reused).
 *
 * Usage:    ./misuse_double_join
 * Expected: BUG - pthread misuse: pthread_join of an already joined thread,
 *           in every execution.
 */
#include <pthread.h>
#include <stdio.h>

static int result;

static void *worker(void *arg)
{
    (void)arg;
    result = 1;
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    int rc = pthread_join(t, NULL); /* BUG: already joined */
    printf("result = %d, second join returned %d\n", result, rc);
    return 0;
}
