/*
 * thread_own_state.c - what each thread keeps for itself: its signal mask,
 * alternate signal stack, thread id, name and stack attributes.
 *
 * Main blocks SIGTERM before creating two workers (each starts with it
 * blocked, as a new thread inherits its creator's mask) and unblocks it
 * after.  Each worker blocks a signal of its own, sets its name and an
 * alternate signal stack, and checks after a lock section (where the other
 * worker may have run) that all of it is still its own: the mask holds its
 * signal and not the other's, the name and alternate stack are the ones it
 * set, its stack attributes contain its own local variable, and its thread
 * id is not main's.  Main checks its own mask at the end and that the two
 * ids differ.
 *
 * Usage:    ./thread_own_state
 * Expected: no bug; every interleaving of the two lock sections.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int turns;
static pid_t ids[2];
static char alt[2][1 << 16];

static int blocked(int sig)
{
    sigset_t now;
    pthread_sigmask(SIG_BLOCK, NULL, &now);
    return sigismember(&now, sig);
}

static void *worker(void *arg)
{
    int me = (int)(long)arg;
    int mine = me ? SIGUSR2 : SIGUSR1, theirs = me ? SIGUSR1 : SIGUSR2;
    assert(blocked(SIGTERM));
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, mine);
    pthread_sigmask(SIG_BLOCK, &s, NULL);
    char name[16] = "worker-0";
    name[7] = (char)('0' + me);
    pthread_setname_np(pthread_self(), name);
    stack_t st = {.ss_sp = alt[me], .ss_size = sizeof alt[me], .ss_flags = 0};
    assert(sigaltstack(&st, NULL) == 0);

    pthread_mutex_lock(&m);
    turns++;
    pthread_mutex_unlock(&m);

    assert(blocked(mine) && !blocked(theirs));
    char now[16];
    pthread_getname_np(pthread_self(), now, sizeof now);
    assert(strcmp(now, name) == 0);
    stack_t cur;
    sigaltstack(NULL, &cur);
    assert(cur.ss_sp == alt[me] && !(cur.ss_flags & SS_DISABLE));
    pthread_attr_t a;
    void *lo;
    size_t size;
    assert(pthread_getattr_np(pthread_self(), &a) == 0);
    pthread_attr_getstack(&a, &lo, &size);
    pthread_attr_destroy(&a);
    assert((char *)&size > (char *)lo && (char *)&size < (char *)lo + size);
    ids[me] = gettid();
    return NULL;
}

int main(void)
{
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &term, NULL);
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    pthread_sigmask(SIG_UNBLOCK, &term, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert(!blocked(SIGTERM) && !blocked(SIGUSR1) && !blocked(SIGUSR2));
    assert(ids[0] != ids[1] && ids[0] != gettid() && ids[1] != gettid());
    assert(turns == 2);
    return 0;
}
