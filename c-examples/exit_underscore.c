/*
 * exit_underscore.c - a thread ends the process with _exit(3).
 *
 * A worker does a mutex-protected update and then calls _exit(3): the
 * process ends at once with status 3, without atexit handlers or stdio
 * flushing, while main is blocked in pthread_join.
 *
 * Usage:    ./exit_underscore
 * Expected: exit status 3 in every execution - reported as a failure when
 *           non-zero exit statuses count as bugs (the default), otherwise
 *           no bug.  A tester must still collect the trace of an execution
 *           that bypassed exit().
 */
#include <pthread.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void *other(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    counter += 1;
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *quitter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    counter += 2;
    pthread_mutex_unlock(&m);
    _exit(3);
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, other, NULL);
    pthread_create(&t2, NULL, quitter, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL); /* never returns */
    return 0;
}
