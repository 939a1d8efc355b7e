// A worker pool shares a heap-allocated job counter and a stack array of
// `main` with its workers. The workers bump the counter without a lock (a
// data race on the heap block); each writes its own slot of the stack array
// (no race). Used to check that reports name heap blocks by allocation
// (`heap#N (allocated at report_heap_names.c:LINE)`) and stack objects by
// thread and function (`T0 stack (main)`), and that a block freed and
// reallocated at the same address gets a new number.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct jobs {
    int done;
    int *results;
};

struct work {
    struct jobs *jobs;
    int index;
};

static void *worker(void *arg) {
    struct work *w = arg;
    w->jobs->results[w->index] = w->index * 10;
    w->jobs->done = w->jobs->done + 1;
    return NULL;
}

int main(void) {
    // A short-lived block first: its address is likely reused below.
    int *scratch = malloc(sizeof(struct jobs));
    free(scratch);
    struct jobs *jobs = malloc(sizeof *jobs);
    int results[2] = {0, 0};
    jobs->done = 0;
    jobs->results = results;
    struct work work[2] = {{jobs, 0}, {jobs, 1}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, &work[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("done = %d, results = %d %d\n", jobs->done, results[0], results[1]);
    free(jobs);
    return 0;
}
