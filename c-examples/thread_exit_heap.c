/* A thread's exit gives its malloc arena back to the C library after its
 * last visible operation: the next thread's first allocation must get the
 * same block in every run of the same schedule. Worker 1 fills its
 * thread cache (so its exit path has work to do), then posts a semaphore
 * that worker 2 waits for before it allocates and writes a block. An atomic
 * counter that all three threads increment makes several schedules, each
 * replayed from a prefix of another.
 *
 * usage: thread_exit_heap [ROUNDS]   (default 2)
 * Expected: no bug, the same operations on the same addresses for a given
 * schedule.
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static sem_t handed;
static atomic_int touches;
static int *volatile kept[2];

static void *first(void *arg)
{
    (void)arg;
    void *chunks[7 * 32];
    for (int i = 0; i < 7 * 32; i++)
        chunks[i] = malloc((size_t)(16 + 16 * (i % 32)));
    for (int i = 0; i < 7 * 32; i++)
        free(chunks[i]);
    int *p = malloc(sizeof *p);
    assert(p);
    *p = 1;
    kept[0] = p;
    atomic_fetch_add(&touches, 1);
    sem_post(&handed);
    return NULL;
}

static void *second(void *arg)
{
    (void)arg;
    sem_wait(&handed);
    int *p = malloc(sizeof *p);
    assert(p);
    *p = 2; /* a visible store to a heap address */
    kept[1] = p;
    atomic_fetch_add(&touches, 1);
    return NULL;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 2;
    if (rounds < 1 || rounds > 100) {
        fprintf(stderr, "usage: %s [ROUNDS (1-100)]\n", argv[0]);
        return 2;
    }
    assert(sem_init(&handed, 0, 0) == 0);
    for (int r = 0; r < rounds; r++) {
        pthread_t a, b;
        assert(pthread_create(&a, NULL, first, NULL) == 0);
        assert(pthread_create(&b, NULL, second, NULL) == 0);
        atomic_fetch_add(&touches, 1);
        assert(pthread_join(b, NULL) == 0);
        assert(pthread_join(a, NULL) == 0);
        free(kept[0]);
        free(kept[1]);
    }
    assert(atomic_load(&touches) == 3 * rounds);
    return 0;
}
