/*
 * spin_dec_lock.c - a decrement lock (Concurrency Kit's ck_spinlock_dec):
 * the word is 1 when free; a thread takes the lock by decrementing it to
 * 0, and a failed decrement (to a negative value) is a write of its own,
 * after which the thread waits until the word is 1 again. The release
 * stores 1.
 *
 * THREADS threads (default 2) each enter a critical section ROUNDS times
 * (default 1). The wait for 1 does nothing until another thread writes the
 * word; the failed decrements are behaviours (they change the word).
 *
 * Usage:    ./spin_dec_lock [THREADS [ROUNDS]]
 * Expected: no bug.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

static atomic_int word = 1;
static int counter;
static int rounds = 1;

static void *worker(void *arg)
{
    (void)arg;
    for (int r = 0; r < rounds; r++) {
        while (atomic_fetch_sub(&word, 1) != 1)
            while (atomic_load(&word) != 1)
                ;
        counter++;
        atomic_store(&word, 1);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 2;
    rounds = argc > 2 ? atoi(argv[2]) : 1;
    if (threads < 1 || threads > 4 || rounds < 1)
        return 2;
    pthread_t t[4];
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    assert(counter == threads * rounds);
    return 0;
}
