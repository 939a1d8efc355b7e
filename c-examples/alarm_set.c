/*
 * alarm_set.c - a program that arms and disarms an alarm in every
 * execution, with two threads adding to a counter under a mutex.
 *
 * An alarm is process state that restoring memory does not undo: a
 * persistent worker marks the first execution, keeps its result and runs
 * every later execution as a forked child, with a note saying why.
 *
 * Expected: no bug; 2 executions (the two orders of the lock sections).
 */
#include <assert.h>
#include <pthread.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void *add(void *arg) {
    (void)arg;
    pthread_mutex_lock(&lock);
    counter++;
    pthread_mutex_unlock(&lock);
    return 0;
}

int main(void) {
    alarm(100);
    pthread_t a, b;
    pthread_create(&a, 0, add, 0);
    pthread_create(&b, 0, add, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    alarm(0);
    assert(counter == 2);
    return 0;
}
