/* zstd's multithreaded compressor: a context with two worker threads
 * compresses a buffer of generated text in streaming mode (jobs of JOB
 * bytes go to the library's pthread pool while the calling thread feeds
 * input and collects output), then the frame is decompressed and compared
 * with the input.
 *
 * usage: zstd_mt [KB [WORKERS]]   (defaults: 24 KB, 2 workers)
 * Built with -DZSTD_MULTITHREAD -DZSTDMT_JOBSIZE_MIN=8192 so that a small
 * buffer is cut into several jobs. Exits 0 when the round trip is exact.
 */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Words with repeats, so the data compresses but not trivially. */
static void generate(unsigned char *buf, size_t size)
{
    static const char *const words[] = {
        "thread ", "mutex ", "wait ", "signal ", "lock ", "unlock ", "join ",
        "spawn ", "atomic ", "fence ", "barrier ", "queue ", "worker ", "job ",
    };
    unsigned state = 12345u;
    size_t at = 0;
    while (at < size) {
        state = state * 1103515245u + 12345u;
        const char *w = words[(state >> 16) % (sizeof words / sizeof *words)];
        size_t len = strlen(w);
        if (len > size - at)
            len = size - at;
        memcpy(buf + at, w, len);
        at += len;
        if ((state >> 8) % 11 == 0 && at < size)
            buf[at++] = (unsigned char)('0' + (state >> 4) % 10);
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
    int kb = 24, workers = 2;
    if (argc > 3 || (argc > 1 && !parse(argv[1], 1, 4096, &kb)) ||
        (argc > 2 && !parse(argv[2], 1, 8, &workers))) {
        fprintf(stderr, "usage: %s [KB (1-4096)] [WORKERS (1-8)]\n", argv[0]);
        return 2;
    }
    size_t size = (size_t)kb * 1024;
    unsigned char *input = malloc(size);
    size_t bound = ZSTD_compressBound(size);
    unsigned char *frame = malloc(bound);
    unsigned char *output = malloc(size);
    assert(input && frame && output);
    generate(input, size);

    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    assert(cctx);
    assert(!ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1)));
    size_t r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_nbWorkers, workers);
    if (ZSTD_isError(r)) {
        fprintf(stderr, "zstd built without multithreading: %s\n", ZSTD_getErrorName(r));
        return 1;
    }
    assert(!ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_jobSize, 8192)));

    /* Feed the input in slices with the size unknown to the compressor, so
     * it runs its multithreaded path; end the frame with the last slice. */
    ZSTD_outBuffer out = {frame, bound, 0};
    size_t slice = 4096;
    for (size_t at = 0; at < size; at += slice) {
        size_t len = size - at < slice ? size - at : slice;
        int last = at + len == size;
        ZSTD_inBuffer in = {input + at, len, 0};
        size_t remaining;
        do {
            remaining = ZSTD_compressStream2(cctx, &out, &in, last ? ZSTD_e_end : ZSTD_e_continue);
            assert(!ZSTD_isError(remaining));
        } while (last ? remaining != 0 : in.pos < in.size);
    }
    ZSTD_freeCCtx(cctx);

    size_t got = ZSTD_decompress(output, size, frame, out.pos);
    assert(!ZSTD_isError(got));
    assert(got == size);
    assert(memcmp(input, output, size) == 0);
    printf("zstd_mt: %zu bytes -> %zu bytes with %d workers, round trip exact\n", size, out.pos,
           workers);
    free(input);
    free(frame);
    free(output);
    return 0;
}
