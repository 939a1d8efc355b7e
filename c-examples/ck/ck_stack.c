/*
 * ck_stack.c - Concurrency Kit's lock-free stack (ck_stack.h) as a
 * program uses it: two producers push one node each, a consumer pops
 * until it has both, retrying (with ck_pr_stall) while the stack is empty.
 *
 *   upmc  ck_stack_push_upmc / ck_stack_pop_upmc: a compare-and-swap loop
 *         on the head, safe for several producers and consumers
 *   spnc  ck_stack_push_spnc from both producers: the single-producer push
 *         (two plain writes) used by two threads, so one push can be lost
 *         and the consumer waits for a node that never comes
 *
 * Usage:    ./ck_stack [upmc|spnc]
 * Expected: upmc: no bug; spnc: a data race on the head (and, where the
 *           push is lost, a consumer that can never leave its loop).
 */
#include <assert.h>
#include <ck_pr.h>
#include <ck_stack.h>
#include <pthread.h>
#include <string.h>

static ck_stack_t stack = CK_STACK_INITIALIZER;
static ck_stack_entry_t nodes[2];
static int single_producer;

static void *producer(void *arg)
{
    ck_stack_entry_t *node = arg;
    if (single_producer)
        ck_stack_push_spnc(&stack, node);
    else
        ck_stack_push_upmc(&stack, node);
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    int seen[2] = {0, 0};
    for (int got = 0; got < 2; got++) {
        ck_stack_entry_t *e;
        while ((e = ck_stack_pop_upmc(&stack)) == NULL)
            ck_pr_stall();
        seen[e - nodes]++;
    }
    assert(seen[0] == 1 && seen[1] == 1);
    return NULL;
}

int main(int argc, char **argv)
{
    single_producer = argc > 1 && !strcmp(argv[1], "spnc");
    pthread_t p[2], c;
    pthread_create(&c, NULL, consumer, NULL);
    for (int i = 0; i < 2; i++)
        pthread_create(&p[i], NULL, producer, &nodes[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(p[i], NULL);
    pthread_join(c, NULL);
    return 0;
}
