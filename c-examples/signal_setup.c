/*
 * signal_setup.c - a program that sets signal actions and an alternate
 * signal stack at the start of every run, as the Rust standard library
 * does before `main`.
 *
 * Main checks that SIGUSR1's action and its alternate signal stack are
 * still the defaults, then sets both, and two threads increment a counter
 * under a lock.  Persistent executions put the action and the stack back
 * after each execution, so every execution starts from the defaults.
 *
 * Usage:    ./signal_setup
 * Expected: no bug; the two orders of the lock sections.
 */
#include <assert.h>
#include <pthread.h>
#include <signal.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int counter;
static char alt[1 << 16];

static void on_usr1(int sig)
{
    (void)sig;
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    struct sigaction now;
    sigaction(SIGUSR1, NULL, &now);
    assert(now.sa_handler == SIG_DFL);
    stack_t st;
    sigaltstack(NULL, &st);
    assert(st.ss_flags & SS_DISABLE);

    struct sigaction set = {.sa_handler = on_usr1, .sa_flags = SA_ONSTACK};
    sigemptyset(&set.sa_mask);
    sigaction(SIGUSR1, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    stack_t mine = {.ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0};
    sigaltstack(&mine, NULL);

    pthread_t a, b;
    pthread_create(&a, NULL, worker, NULL);
    pthread_create(&b, NULL, worker, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    assert(counter == 2);
    return 0;
}
