/*
 * spin_read_once.c - Linux-kernel style busy-waiting: a gate handed over
 * with WRITE_ONCE, waited for with `while (READ_ONCE(gate)) cpu_relax();`.
 *
 * READ_ONCE and WRITE_ONCE are volatile accesses (the kernel's marked
 * accesses) and cpu_relax is `rep; nop`. WAITERS threads wait at the
 * closed gate; the opener opens it; each waiter then adds its number to a
 * shared total with READ_ONCE and WRITE_ONCE (marked accesses racing with
 * each other are no data race: an update may be lost, which is what the
 * program prints, not a bug). With PLAIN set to 1 the opener also resets
 * the total with a plain store after opening the gate: a plain access
 * racing with the waiters' marked ones, a data race.
 *
 * Usage:    ./spin_read_once [WAITERS [PLAIN]]
 * Expected: no bug with PLAIN 0 (the default), a data race with PLAIN 1.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

static inline void cpu_relax(void)
{
    __asm__ __volatile__("rep; nop" ::: "memory");
}

static int gate = 1;
static int total;
static int plain;

static void *waiter(void *arg)
{
    int me = (int)(long)arg;
    while (READ_ONCE(gate))
        cpu_relax();
    WRITE_ONCE(total, READ_ONCE(total) + me);
    return NULL;
}

static void *opener(void *arg)
{
    (void)arg;
    WRITE_ONCE(gate, 0);
    if (plain)
        total = 0;
    return NULL;
}

int main(int argc, char **argv)
{
    int waiters = argc > 1 ? atoi(argv[1]) : 2;
    plain = argc > 2 ? atoi(argv[2]) : 0;
    if (waiters < 1 || waiters > 7)
        return 2;
    pthread_t t[8];
    for (int i = 0; i < waiters; i++)
        pthread_create(&t[i], NULL, waiter, (void *)(long)(i + 1));
    pthread_create(&t[waiters], NULL, opener, NULL);
    for (int i = 0; i <= waiters; i++)
        pthread_join(t[i], NULL);
    printf("total %d\n", total);
    return 0;
}
