/*
 * filesystem.c - the File System benchmark of Flanagan & Godefroid,
 * "Dynamic Partial-Order Reduction for Model Checking Software" (POPL 2005).
 *
 * A toy file system with NUMINODE = 32 inodes and NUMBLOCKS = 26 disk
 * blocks, each protected by its own mutex.  Thread `tid` works on inode
 * i = tid % NUMINODE: it locks the inode and, if the inode has no block yet,
 * searches for a free block starting at b = (i*2) % NUMBLOCKS, locking each
 * block it inspects and taking the first free one (busy[b] = 1,
 * inode[i] = b + 1).
 *
 * Threads 0..12 start at distinct even blocks 0..24 and never meet.  Thread
 * 13 starts at block 0 like thread 0, thread 14 at block 2 like thread 1,
 * and so on; the loser of each such pair moves on to the (uncontended) odd
 * block next to it.  So each thread beyond 13 adds one independent binary
 * choice.
 *
 * Usage:    ./filesystem [N]     N threads, default 16 (1..26; with more
 *                                threads than blocks the search never ends)
 * Expected: no bug.  main checks every inode got a distinct block.
 * Published figures:
 *   Mazurkiewicz traces, as an optimal DPOR counts them for the C version:
 *   N = 14/16/18 -> 2 / 8 / 32 (= 2^(N-13)); N <= 13 -> 1.
 *   Saarikivi et al. (LCT, Fig. 8), test executions
 *   (DPOR / DPOR-CR / DPOR-CR + sleep sets / jCUTE):
 *   FS(14) 6.8 / 3.2 / 2.6 / 2;  FS(16) 568.4 / 26.8 / 19.5 / 31;
 *   FS(18) >10000 / 250.2 / 145.8 / 2026.
 *   Kahkonen et al. (unfolding-based testing), Filesystem 1: 3 test runs.
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NUMBLOCKS 26
#define NUMINODE 32

static pthread_mutex_t locki[NUMINODE];
static int inode[NUMINODE];   /* 0 = no block, else block number + 1 */
static pthread_mutex_t lockb[NUMBLOCKS];
static int busy[NUMBLOCKS];

static void *fs_thread(void *arg)
{
    int tid = (int)(intptr_t)arg;
    int i = tid % NUMINODE;

    pthread_mutex_lock(&locki[i]);
    if (inode[i] == 0) {
        int b = (i * 2) % NUMBLOCKS;
        for (;;) {
            pthread_mutex_lock(&lockb[b]);
            if (!busy[b]) {
                busy[b] = 1;
                inode[i] = b + 1;
                pthread_mutex_unlock(&lockb[b]);
                break;
            }
            pthread_mutex_unlock(&lockb[b]);
            b = (b + 1) % NUMBLOCKS;
        }
    }
    pthread_mutex_unlock(&locki[i]);
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 16;
    if (n < 1 || n > NUMBLOCKS) {
        fprintf(stderr, "usage: %s [N 1..%d]\n", argv[0], NUMBLOCKS);
        return 2;
    }
    for (int i = 0; i < NUMINODE; i++)
        pthread_mutex_init(&locki[i], NULL);
    for (int b = 0; b < NUMBLOCKS; b++)
        pthread_mutex_init(&lockb[b], NULL);

    pthread_t t[NUMBLOCKS];
    for (int k = 0; k < n; k++)
        pthread_create(&t[k], NULL, fs_thread, (void *)(intptr_t)k);
    for (int k = 0; k < n; k++)
        pthread_join(t[k], NULL);

    /* every used inode has a block, and no block is shared */
    int owner[NUMBLOCKS] = {0};
    for (int i = 0; i < n && i < NUMINODE; i++) {
        assert(inode[i] >= 1 && inode[i] <= NUMBLOCKS);
        int b = inode[i] - 1;
        assert(busy[b] && !owner[b]);
        owner[b] = 1;
    }
    printf("filesystem: %d threads allocated their blocks\n", n);
    return 0;
}
