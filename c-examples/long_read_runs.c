/* A poller that reads a shared stop flag many times, each read followed by
 * a write of its own, while another thread's pending store to the flag waits:
 * one execution has a long run of reads of the flag since its last write.
 * The analysis of such a trace must stay linear in its length.
 *
 * Usage: long_read_runs [POLLS]   (default 100000)
 * Expected: no bug; the search is large (one order per read the store can
 * precede), so it is run with --max-time.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_int stop_flag;
static atomic_long polls_done;
static long polls = 100000;

static void *poller(void *arg) {
    (void)arg;
    for (long i = 0; i < polls; i++) {
        if (atomic_load(&stop_flag))
            break;
        atomic_fetch_add(&polls_done, 1);
    }
    return NULL;
}

static void *stopper(void *arg) {
    (void)arg;
    atomic_store(&stop_flag, 1);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc > 1) {
        char *end;
        polls = strtol(argv[1], &end, 10);
        if (*end != '\0' || polls < 1) {
            fprintf(stderr, "usage: long_read_runs [POLLS >= 1]\n");
            return 2;
        }
    }
    pthread_t a, b;
    pthread_create(&a, NULL, poller, NULL);
    pthread_create(&b, NULL, stopper, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return atomic_load(&polls_done) <= polls ? 0 : 1;
}
