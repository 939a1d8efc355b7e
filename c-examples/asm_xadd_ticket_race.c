/*
 * asm_xadd_ticket_race.c - tickets from a `lock xadd` counter, used wrongly.
 *
 * Each thread takes a ticket with `lock xaddl` on a shared counter (inline
 * assembly), then - the bug - re-reads the counter to compute its ticket
 * instead of using the value xadd returned.  It claims slot[ticket] with an
 * `xchgl` and asserts that nobody held the slot.  Every shared access is
 * inline assembly (atomic on x86), so there is no data race: the bug shows
 * only if another thread's xadd falls between a thread's xadd and its
 * re-read, and both threads then claim the same slot.
 *
 * Usage:    ./asm_xadd_ticket_race [THREADS]   THREADS defaults to 2 (max 8)
 * Expected: BUG - assertion failure (two threads claim the same slot).
 *           Natively it almost always passes.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 8

static int next_ticket;            /* only touched by inline assembly */
static int slot_owner[MAX_THREADS]; /* 0 free, else owner id + 1 */

static int asm_xadd(int *p, int v)
{
    __asm__ __volatile__("lock; xaddl %0, %1" : "+r"(v), "+m"(*p) : : "memory");
    return v;
}

static int asm_xchg(int *p, int v)
{
    __asm__ __volatile__("xchgl %0, %1" : "+r"(v), "+m"(*p) : : "memory");
    return v;
}

static int asm_read(int *p)
{
    int v;
    __asm__ __volatile__("movl %1, %0" : "=r"(v) : "m"(*p));
    return v;
}

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    asm_xadd(&next_ticket, 1);
    __asm__ __volatile__("mfence" : : : "memory");
    int mine = asm_read(&next_ticket) - 1; /* BUG: should be xadd's result */
    int previous = asm_xchg(&slot_owner[mine], id + 1);
    assert(previous == 0);
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2;
    if (n < 2 || n > MAX_THREADS) {
        fprintf(stderr, "usage: %s [THREADS 2..%d]\n", argv[0], MAX_THREADS);
        return 2;
    }
    pthread_t t[MAX_THREADS];
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, worker, (void *)(long)i);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    printf("tickets = %d\n", next_ticket);
    return 0;
}
