/* zstd's own thread pool (lib/common/pool.c) used directly: a pool of
 * WORKERS threads with a queue of two slots runs JOBS jobs, each compressing
 * one slice of a generated buffer with its own compression context; the pool
 * grows by one thread halfway through (POOL_resize), and POOL_joinJobs waits
 * for the queue to drain. Jobs record their results under a mutex; main then
 * decompresses every slice and compares it with the input.
 *
 * usage: zstd_pool [JOBS [WORKERS]]   (defaults: 6 jobs, 2 workers)
 * Exits 0 when every slice round-trips exactly.
 */
#include "common/pool.h"
#include <zstd.h>

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLICE 1024
#define MAX_JOBS 32

struct job {
    int index;
    const unsigned char *input;
    unsigned char frame[SLICE + 128];
    size_t frame_size;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int finished;
static size_t compressed_total;

static void compress_slice(void *arg)
{
    struct job *job = arg;
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    assert(cctx);
    size_t n = ZSTD_compressCCtx(cctx, job->frame, sizeof job->frame, job->input, SLICE, 1);
    assert(!ZSTD_isError(n));
    ZSTD_freeCCtx(cctx);
    job->frame_size = n;
    pthread_mutex_lock(&lock);
    finished++;
    compressed_total += n;
    pthread_mutex_unlock(&lock);
}

static void generate(unsigned char *buf, size_t size)
{
    static const char *const words[] = {"pool ", "queue ", "job ", "worker ", "resize ", "join "};
    unsigned state = 777u;
    for (size_t at = 0; at < size;) {
        state = state * 1103515245u + 12345u;
        const char *w = words[(state >> 16) % 6];
        for (size_t k = 0; w[k] && at < size; k++)
            buf[at++] = (unsigned char)w[k];
    }
}

static int parse(const char *text, int low, int high, int *out)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || v < low || v > high)
        return 0;
    *out = (int)v;
    return 1;
}

int main(int argc, char **argv)
{
    int jobs = 6, workers = 2;
    if (argc > 3 || (argc > 1 && !parse(argv[1], 1, MAX_JOBS, &jobs)) ||
        (argc > 2 && !parse(argv[2], 1, 8, &workers))) {
        fprintf(stderr, "usage: %s [JOBS (1-%d)] [WORKERS (1-8)]\n", argv[0], MAX_JOBS);
        return 2;
    }
    static unsigned char input[MAX_JOBS * SLICE];
    static struct job job[MAX_JOBS];
    generate(input, sizeof input);

    POOL_ctx *pool = POOL_create((size_t)workers, 2);
    assert(pool);
    for (int i = 0; i < jobs; i++) {
        job[i].index = i;
        job[i].input = input + (size_t)i * SLICE;
        if (i == jobs / 2)
            assert(POOL_resize(pool, (size_t)workers + 1) == 0);
        POOL_add(pool, compress_slice, &job[i]);
    }
    POOL_joinJobs(pool);
    POOL_free(pool);

    assert(finished == jobs);
    size_t total = 0;
    for (int i = 0; i < jobs; i++) {
        unsigned char back[SLICE];
        size_t n = ZSTD_decompress(back, sizeof back, job[i].frame, job[i].frame_size);
        assert(!ZSTD_isError(n));
        assert(n == SLICE);
        assert(memcmp(back, job[i].input, SLICE) == 0);
        total += job[i].frame_size;
    }
    assert(total == compressed_total);
    printf("zstd_pool: %d jobs on %d+1 workers, %zu bytes compressed, round trips exact\n", jobs,
           workers, total);
    return 0;
}
