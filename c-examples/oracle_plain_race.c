/*
 * oracle_plain_race.c - an unsynchronised plain write/read pair.
 *
 * Thread 1 writes a plain int; thread 2 reads it with no lock, atomic or
 * join between them.  Nothing is asserted: the only bug is the race itself.
 *
 * Usage:    ./oracle_plain_race
 * Expected: BUG - data race on `shared` (write in writer, read in reader).
 *           2 Mazurkiewicz traces (read before or after the write), and the
 *           race is visible in both.
 */
#include <pthread.h>
#include <stdio.h>

static int shared;
static int seen;

static void *writer(void *arg) { (void)arg; shared = 1; return NULL; }
static void *reader(void *arg) { (void)arg; seen = shared; return NULL; }

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, writer, NULL);
    pthread_create(&t2, NULL, reader, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("seen = %d\n", seen);
    return 0;
}
