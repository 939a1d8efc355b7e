/*
 * forks_child.c - fork() from a multithreaded process.
 *
 * main starts a worker thread, then forks while the worker may still be
 * running.  The child has only the forking thread: it does a small
 * computation under a mutex of its own and exits with status 42.  The
 * parent waits for the child, checks its status, and joins the worker.
 *
 * Usage:    ./forks_child
 * Expected: no bug; exit status 0.  (A tester must explore the parent only
 *           and must not mistake the child's exit for the end of the
 *           execution.)
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t worker_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t child_lock = PTHREAD_MUTEX_INITIALIZER; /* never used by the worker */
static int worker_count;

static void *worker(void *arg)
{
    (void)arg;
    for (int k = 0; k < 2; k++) {
        pthread_mutex_lock(&worker_lock);
        worker_count++;
        pthread_mutex_unlock(&worker_lock);
    }
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);

    fflush(stdout);
    pid_t pid = fork();
    assert(pid >= 0);
    if (pid == 0) {
        /* child: single-threaded copy of the parent */
        int sum = 0;
        pthread_mutex_lock(&child_lock);
        for (int k = 1; k <= 6; k++)
            sum += k; /* 21 */
        pthread_mutex_unlock(&child_lock);
        exit(sum * 2); /* 42 */
    }

    int status = 0;
    pid_t r = waitpid(pid, &status, 0);
    assert(r == pid);
    assert(WIFEXITED(status) && WEXITSTATUS(status) == 42);
    pthread_join(t, NULL);
    assert(worker_count == 2);
    printf("child exited with %d\n", WEXITSTATUS(status));
    return 0;
}
