// reach: symbolic
// Two threads each add to a shared counter as many times as an input says
// (`n1`, `n2` in 0..2), with an unprotected read-then-write per step. The
// thread that runs twice jumps the counter to 10 when it reads 2: only some
// interleavings of some input pairs get there, and the final check fails
// when it happened with `n1 + n2 == 3`. Branches on inputs (the loop
// bounds) and on values read from shared memory (`v == 2`, symbolic only
// through the inputs) interleave with the threads' visible operations, so
// the combined execution tree has branch nodes under most scheduling nodes.
#include <assert.h>
#include <pthread.h>
#include <reach.h>

static int counter;
static int n1, n2;

static void *add(void *arg) {
    int n = *(int *)arg;
    for (int i = 0; i < n; i++) {
        int v = __atomic_load_n(&counter, __ATOMIC_SEQ_CST);
        if (v == 2 && n == 2)
            __atomic_store_n(&counter, 10, __ATOMIC_SEQ_CST);
        else
            __atomic_store_n(&counter, v + 1, __ATOMIC_SEQ_CST);
    }
    return 0;
}

int main(void) {
    n1 = reach_input_int("n1", 0, 2);
    n2 = reach_input_int("n2", 0, 2);
    pthread_t p, q;
    pthread_create(&p, 0, add, &n1);
    pthread_create(&q, 0, add, &n2);
    pthread_join(p, 0);
    pthread_join(q, 0);
    if (counter == 10)
        assert(n1 + n2 != 3);
    return 0;
}
