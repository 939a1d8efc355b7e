/*
 * persist_pages.c - three threads take tickets with one atomic add each;
 * each then writes a different set of pages depending on its ticket and
 * on who it is, writes one page and puts it back as it was, and fills
 * and frees a heap block and a stack buffer. main checks first that every
 * page is as the program starts.
 *
 * Which pages an execution writes, and with what, changes from one
 * interleaving to the next: a persistent worker must put back every page
 * the previous execution left different (also one it leaves unprotected
 * because it was written before, or because earlier executions wrote it
 * back to its own contents). Any page left as the previous execution
 * wrote it fails main's check (abort).
 *
 * The threads write disjoint bytes: the only conflicts are the three adds.
 *
 * Expected: no bug; 6 executions (the orders of the three adds).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define PAGES 48
#define PAGE 4096

static char pages[PAGES][PAGE];
static const char zero[PAGE];
static int initialised[PAGE / sizeof(int)] = {7, 7, 7};
static int tickets;

static void *worker(void *arg) {
    int me = (int)(long)arg;
    int t = __atomic_fetch_add(&tickets, 1, __ATOMIC_SEQ_CST);
    for (int p = t; p < PAGES - 1; p += 3)
        memset(pages[p] + 64 * me, me + 1, 64);
    /* Written, then put back: the page ends as it started. */
    memset(pages[PAGES - 1] + 2048 + 8 * me, 9, 8);
    memset(pages[PAGES - 1] + 2048 + 8 * me, 0, 8);
    /* ... and, in the interleavings where thread 0 comes last, left
     * different: a page the worker may keep unprotected as one written
     * back to what it held must still be put back. */
    if (me == 0 && t == 2)
        memset(pages[PAGES - 1] + 3072, 5, 8);
    memset(&initialised[t + 3], me + 1, sizeof(int));
    char *block = malloc(3 * PAGE);
    if (block) {
        memset(block, t + 1, 3 * PAGE);
        free(block);
    }
    char stack[2 * PAGE];
    memset(stack, me + 1, sizeof stack);
    __asm__ volatile("" : : "r"(stack) : "memory");
    return 0;
}

int main(void) {
    for (int p = 0; p < PAGES; p++)
        if (memcmp(pages[p], zero, PAGE) != 0)
            abort();
    static const int start[6] = {7, 7, 7, 0, 0, 0};
    if (memcmp(initialised, start, sizeof start) != 0 || tickets != 0)
        abort();
    pthread_t t[3];
    for (long i = 0; i < 3; i++)
        pthread_create(&t[i], 0, worker, (void *)i);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], 0);
    return 0;
}
