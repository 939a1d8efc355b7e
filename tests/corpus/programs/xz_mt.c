/* liblzma's multithreaded encoder: a stream encoder with WORKERS threads
 * compresses KB kilobytes of generated text in blocks of 4 KB (each block
 * is one job, encoded by a worker with its own LZMA2 encoder state on the
 * heap while the calling thread feeds input and collects output), then the
 * stream is decoded and compared with the input.
 *
 * usage: xz_mt [KB [WORKERS]]   (defaults: 8 KB, 2 workers)
 * Exits 0 when the round trip is exact.
 */
#include <lzma.h>

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
    int kb = 8, workers = 2;
    if (argc > 3 || (argc > 1 && !parse(argv[1], 1, 4096, &kb)) ||
        (argc > 2 && !parse(argv[2], 1, 8, &workers))) {
        fprintf(stderr, "usage: %s [KB (1-4096)] [WORKERS (1-8)]\n", argv[0]);
        return 2;
    }
    size_t size = (size_t)kb * 1024;
    size_t bound = lzma_stream_buffer_bound(size);
    unsigned char *input = malloc(size);
    unsigned char *stream = malloc(bound);
    unsigned char *output = malloc(size);
    assert(input && stream && output);
    generate(input, size);

    /* Preset 0 (the smallest dictionary), blocks of 4 KB: one job each. */
    lzma_mt mt = {
        .threads = (unsigned)workers,
        .block_size = 4096,
        .preset = 0,
        .check = LZMA_CHECK_CRC32,
    };
    lzma_stream enc = LZMA_STREAM_INIT;
    lzma_ret r = lzma_stream_encoder_mt(&enc, &mt);
    if (r != LZMA_OK) {
        fprintf(stderr, "lzma_stream_encoder_mt failed: %d\n", (int)r);
        return 1;
    }
    /* Feed the input in slices of 2 KB, then finish the stream. */
    enc.next_out = stream;
    enc.avail_out = bound;
    size_t fed = 0;
    for (;;) {
        if (enc.avail_in == 0 && fed < size) {
            size_t n = size - fed < 2048 ? size - fed : 2048;
            enc.next_in = input + fed;
            enc.avail_in = n;
            fed += n;
        }
        lzma_action action = fed == size ? LZMA_FINISH : LZMA_RUN;
        r = lzma_code(&enc, action);
        if (r == LZMA_STREAM_END)
            break;
        if (r != LZMA_OK) {
            fprintf(stderr, "lzma_code (encode) failed: %d\n", (int)r);
            return 1;
        }
    }
    size_t compressed = enc.total_out;
    lzma_end(&enc);

    lzma_stream dec = LZMA_STREAM_INIT;
    r = lzma_stream_decoder(&dec, UINT64_MAX, 0);
    assert(r == LZMA_OK);
    dec.next_in = stream;
    dec.avail_in = compressed;
    dec.next_out = output;
    dec.avail_out = size;
    r = lzma_code(&dec, LZMA_FINISH);
    if (r != LZMA_STREAM_END || dec.total_out != size) {
        fprintf(stderr, "lzma_code (decode) failed: %d, %llu bytes\n", (int)r,
                (unsigned long long)dec.total_out);
        return 1;
    }
    lzma_end(&dec);
    assert(memcmp(input, output, size) == 0);
    printf("xz_mt: %zu bytes -> %zu bytes, round trip exact\n", size, compressed);
    free(input);
    free(stream);
    free(output);
    return 0;
}
