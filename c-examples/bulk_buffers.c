/* Two workers each fill a large buffer of their own with memset and copy
 * it to a second one, a few rounds, and count their rounds in a shared
 * counter under a mutex. Each bulk call is one access to thousands of
 * memory granules: the analysis of an execution must stay near linear in
 * the size of its accesses (arguments: buffer size in KiB, default 64, and
 * rounds, default 2). Correct: one behaviour per order of the counter's
 * critical sections. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long rounds_done;
static size_t size;
static int rounds;
static unsigned char *bufs[2][2];

static void *worker(void *arg) {
    long me = (long)arg;
    for (int r = 0; r < rounds; r++) {
        memset(bufs[me][0], (int)(me + r), size);
        memcpy(bufs[me][1], bufs[me][0], size);
    }
    pthread_mutex_lock(&m);
    rounds_done += rounds;
    pthread_mutex_unlock(&m);
    return 0;
}

int main(int argc, char **argv) {
    size = (argc > 1 ? (size_t)atol(argv[1]) : 64) * 1024;
    rounds = argc > 2 ? atoi(argv[2]) : 2;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            bufs[i][j] = malloc(size);
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], 0, worker, (void *)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], 0);
    return rounds_done == 2L * rounds ? 0 : 1;
}
