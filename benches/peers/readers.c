/* readers(N): one thread writes an atomic flag once while N threads each
 * read it once; main returns without joining.  Build with -DN=2 (default),
 * 8 or 13.  Behaviours: each reader sees the write or not: 2^N. */
#include <pthread.h>
#include <stdatomic.h>

#ifndef N
#define N 2
#endif

static atomic_int flag;

static void *writer(void *arg)
{
    (void)arg;
    atomic_store(&flag, 1);
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    (void)atomic_load(&flag);
    return NULL;
}

int main(void)
{
    pthread_t w, r[N];
    pthread_create(&w, NULL, writer, NULL);
    for (int k = 0; k < N; k++)
        pthread_create(&r[k], NULL, reader, NULL);
    return 0;
}
