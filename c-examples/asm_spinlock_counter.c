/*
 * asm_spinlock_counter.c - a plain counter protected by a spin lock written
 * in x86-64 inline assembly.
 *
 * The lock word is only ever touched by inline assembly:
 *   - spin while it is held: a `movl` from an input-only memory operand
 *     ("m"), with `pause` (no memory operand, no memory clobber) between reads;
 *   - acquire: `lock cmpxchgl` 0 -> 1 on a "+m" operand, retried if it fails;
 *   - release: `movl $0` into an output memory operand ("=m") with a
 *     "memory" clobber (x86 stores are releases; the clobber keeps the
 *     compiler from moving the critical section below it).
 * Each thread increments `counter` (a plain int, no atomics) ITERS times
 * under the lock; main joins them and asserts the total.
 *
 * Usage:    ./asm_spinlock_counter [THREADS [ITERS]]   defaults 2 1 (max 8, 8)
 * Expected: no bug, no data race: the increments are ordered by the lock's
 *           atomic operations.  Natively it always passes.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 8
#define MAX_ITERS 8

static int lock_word; /* 0 free, 1 held; accessed only by inline assembly */
static int counter;   /* protected by lock_word */
static int iters;

static int asm_read(int *p)
{
    int v;
    __asm__ __volatile__("movl %1, %0" : "=r"(v) : "m"(*p));
    return v;
}

/* Returns the value found in *p; the exchange happened iff it equals old. */
static int asm_cmpxchg(int *p, int old, int new_value)
{
    int prev;
    __asm__ __volatile__("lock; cmpxchgl %2, %1"
                         : "=a"(prev), "+m"(*p)
                         : "r"(new_value), "0"(old)
                         : "memory");
    return prev;
}

static void spin_lock(int *l)
{
    for (;;) {
        while (asm_read(l) != 0)
            __asm__ __volatile__("pause");
        if (asm_cmpxchg(l, 0, 1) == 0)
            return;
    }
}

static void spin_unlock(int *l)
{
    __asm__ __volatile__("movl $0, %0" : "=m"(*l) : : "memory");
}

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < iters; i++) {
        spin_lock(&lock_word);
        counter++;
        spin_unlock(&lock_word);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2;
    iters = argc > 2 ? atoi(argv[2]) : 1;
    if (n < 1 || n > MAX_THREADS || iters < 1 || iters > MAX_ITERS) {
        fprintf(stderr, "usage: %s [THREADS 1..%d [ITERS 1..%d]]\n", argv[0],
                MAX_THREADS, MAX_ITERS);
        return 2;
    }
    pthread_t t[MAX_THREADS];
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    assert(counter == n * iters);
    printf("counter = %d\n", counter);
    return 0;
}
