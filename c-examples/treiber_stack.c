/* A lock-free (Treiber) stack: THREADS threads each push OPS nodes of their
 * own with compare-and-swap retry loops on the shared head, then pop OPS
 * nodes. Nodes are never freed or pushed twice, so there is no ABA problem.
 * At the end every pushed value was popped exactly once.
 *
 * Usage: treiber_stack [THREADS [OPS]]   (defaults 3, 2)
 * Expected: no bug.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 8
#define MAX_OPS 64

struct node {
    int value;
    struct node *next;
};

static _Atomic(struct node *) head;
static struct node nodes[MAX_THREADS][MAX_OPS];
static int popped[MAX_THREADS][MAX_OPS];
static int threads = 3, ops = 2;

static void push(struct node *n) {
    struct node *old = atomic_load(&head);
    do {
        n->next = old;
    } while (!atomic_compare_exchange_weak(&head, &old, n));
}

static struct node *pop(void) {
    struct node *old = atomic_load(&head);
    while (old != NULL && !atomic_compare_exchange_weak(&head, &old, old->next))
        ;
    return old;
}

static void *worker(void *arg) {
    int id = (int)(long)arg;
    for (int i = 0; i < ops; i++) {
        nodes[id][i].value = id * MAX_OPS + i;
        push(&nodes[id][i]);
    }
    for (int i = 0; i < ops; i++) {
        struct node *n = pop();
        /* Each thread pushed as many as it pops before it, so the stack
         * holds at least one node for each of its pops. */
        assert(n != NULL);
        popped[id][i] = n->value;
    }
    return NULL;
}

static int parse(const char *s, int max) {
    char *end;
    long v = strtol(s, &end, 10);
    if (*end != '\0' || v < 1 || v > max) {
        fprintf(stderr, "usage: treiber_stack [THREADS 1..%d [OPS 1..%d]]\n", MAX_THREADS, MAX_OPS);
        exit(2);
    }
    return (int)v;
}

int main(int argc, char **argv) {
    if (argc > 1)
        threads = parse(argv[1], MAX_THREADS);
    if (argc > 2)
        ops = parse(argv[2], MAX_OPS);
    pthread_t t[MAX_THREADS];
    for (long i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    static int seen[MAX_THREADS * MAX_OPS];
    for (int i = 0; i < threads; i++)
        for (int j = 0; j < ops; j++) {
            int v = popped[i][j];
            assert(v >= 0 && v < MAX_THREADS * MAX_OPS && !seen[v]);
            seen[v] = 1;
        }
    assert(atomic_load(&head) == NULL);
    return 0;
}
