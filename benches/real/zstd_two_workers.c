/* Start-up cost of a real library under reach-native: zstd (the sources
 * bundled by the zstd-sys crate, built with ZSTD_MULTITHREAD) compresses a
 * buffer with two worker threads (ZSTD_c_nbWorkers = 2) and checks that it
 * decompresses back to the input. The input goes through the streaming API
 * with no size announced: zstd compresses a buffer of known size below its
 * minimum job size (512 KiB) in the calling thread instead. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zstd.h"

#ifndef INPUT_BYTES
#define INPUT_BYTES (64 * 1024)
#endif

int main(int argc, char **argv) {
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : INPUT_BYTES;
    unsigned char *in = malloc(n);
    assert(in);
    for (size_t i = 0; i < n; i++)
        in[i] = (unsigned char)("reach-native "[i % 13] ^ (i / 4096));
    size_t cap = ZSTD_compressBound(n);
    unsigned char *out = malloc(cap);
    unsigned char *back = malloc(n);
    assert(out && back);
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    assert(cctx);
    size_t r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_nbWorkers, 2);
    assert(!ZSTD_isError(r));
    ZSTD_inBuffer src = {in, n, 0};
    ZSTD_outBuffer dst = {out, cap, 0};
    r = ZSTD_compressStream2(cctx, &dst, &src, ZSTD_e_continue);
    assert(!ZSTD_isError(r));
    do {
        r = ZSTD_compressStream2(cctx, &dst, &src, ZSTD_e_end);
        assert(!ZSTD_isError(r));
    } while (r != 0);
    size_t packed = dst.pos;
    ZSTD_freeCCtx(cctx);
    size_t unpacked = ZSTD_decompress(back, n, out, packed);
    assert(unpacked == n && memcmp(in, back, n) == 0);
    printf("%zu -> %zu bytes\n", n, packed);
    free(in);
    free(out);
    free(back);
    return 0;
}
