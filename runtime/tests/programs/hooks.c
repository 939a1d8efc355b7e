/* Emulates instrumented code by calling the hooks by hand. */
#include <pthread.h>
#include <sched.h>
#include <string.h>

extern void __reach_load(unsigned long, const void *, unsigned long) __attribute__((weak));
extern void __reach_store(unsigned long, const void *, unsigned long) __attribute__((weak));
extern void __reach_cmpxchg(unsigned long, const void *, unsigned long, unsigned long, unsigned) __attribute__((weak));
extern void __reach_call_site(unsigned long) __attribute__((weak));
extern void __reach_atomic_rmw(unsigned long, const void *, unsigned long, unsigned, unsigned,
                               unsigned long) __attribute__((weak));

/* Operation codes of the hook ABI (reach_channel::hooks::RmwOp), and the
 * "operand known" bit. */
enum { RMW_UNKNOWN = 0, RMW_XCHG = 1, RMW_ADD = 2, RMW_OR = 6, RMW_KNOWN = 0x100 };
#define RMW(site, p, op, v) \
    (__reach_atomic_rmw ? __reach_atomic_rmw(site, p, sizeof *(p), 5, op, v) : (void)0)

#define LOAD(site, p) (__reach_load ? __reach_load(site, p, sizeof *(p)) : (void)0)
#define STORE(site, p) (__reach_store ? __reach_store(site, p, sizeof *(p)) : (void)0)

static volatile int flag, x, lk;

static void *setter(void *a) {
    STORE(1, &x); x = 1;
    STORE(2, &flag); flag = 1;
    return a;
}

static void *never_set(void *a) { return a; }

static void *spin_forever(void *a) {
    for (;;) { LOAD(3, &flag); if (flag) break; }
    return a;
}

static void *release_lock(void *a) {
    STORE(10, &lk); lk = 0;
    return a;
}

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t many[200];
static int bound = 200;

static void *wait_gate(void *a) {
    pthread_mutex_lock(&gate);
    pthread_mutex_unlock(&gate);
    return a;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    pthread_t t;
    if (!strcmp(mode, "spin")) {
        /* Spin until the other thread sets the flag. */
        pthread_create(&t, 0, setter, 0);
        for (;;) { LOAD(3, &flag); if (flag) break; }
        LOAD(4, &x);
        int r = x;
        pthread_join(t, 0);
        return r == 1 ? 0 : 1;
    }
    if (!strcmp(mode, "spin-forever")) {
        /* Thread 1 spins on a flag nobody sets while main waits for it. */
        pthread_create(&t, 0, spin_forever, 0);
        pthread_join(t, 0);
        return 0;
    }
    if (!strcmp(mode, "spin-alone")) {
        /* The only live thread re-reads the flag: not a spin (nobody else
         * could set it), so it runs on to the step bound. */
        pthread_create(&t, 0, never_set, 0);
        pthread_join(t, 0);
        for (;;) { LOAD(3, &flag); if (flag) break; }
        return 0;
    }
    if (!strcmp(mode, "init-loop")) {
        /* Thread 1 waits for the gate main holds while main re-reads its
         * loop bound and initialises mutexes: progress, not a spin. */
        pthread_mutex_lock(&gate);
        pthread_create(&t, 0, wait_gate, 0);
        for (int i = 0;; i++) {
            LOAD(8, &bound);
            if (i >= bound) break;
            pthread_mutex_init(&many[i], 0);
        }
        pthread_mutex_unlock(&gate);
        pthread_join(t, 0);
        return 0;
    }
    if (!strcmp(mode, "rmw")) {
        /* Each hook call announces the operation performed just after it. */
        static int v = 1;
        RMW(11, &v, RMW_XCHG | RMW_KNOWN, 1); __sync_lock_test_and_set(&v, 1); /* unchanged */
        RMW(12, &v, RMW_ADD | RMW_KNOWN, 0); __sync_fetch_and_add(&v, 0);      /* unchanged */
        RMW(13, &v, RMW_OR | RMW_KNOWN, 1); __sync_fetch_and_or(&v, 1);        /* unchanged */
        RMW(14, &v, RMW_XCHG | RMW_KNOWN, 2); __sync_lock_test_and_set(&v, 2); /* written */
        RMW(15, &v, RMW_ADD | RMW_KNOWN, 1); __sync_fetch_and_add(&v, 1);      /* written */
        RMW(16, &v, RMW_ADD, 0); __sync_fetch_and_add(&v, 0);                 /* operand unknown */
        RMW(17, &v, RMW_UNKNOWN | RMW_KNOWN, 0); __sync_fetch_and_add(&v, 0);  /* op unknown */
        return v == 3 ? 0 : 1;
    }
    if (!strcmp(mode, "xchg-spin")) {
        /* Main takes the lock, starts the releaser, then spins exchanging 1
         * for 1 until it is parked and the releaser runs. */
        lk = 1;
        pthread_create(&t, 0, release_lock, 0);
        for (;;) {
            RMW(9, &lk, RMW_XCHG | RMW_KNOWN, 1);
            if (__sync_lock_test_and_set(&lk, 1) == 0) break;
        }
        pthread_join(t, 0);
        return 0;
    }
    if (!strcmp(mode, "yield-spin")) {
        pthread_create(&t, 0, setter, 0);
        while (!flag) sched_yield();
        pthread_join(t, 0);
        return 0;
    }
    if (!strcmp(mode, "cas")) {
        static int v = 5;
        __reach_cmpxchg(5, &v, 4, 7, 5);
        __sync_bool_compare_and_swap(&v, 7, 8);
        __reach_cmpxchg(6, &v, 4, 5, 5);
        __sync_bool_compare_and_swap(&v, 5, 6);
        return v == 6 ? 0 : 1;
    }
    if (!strcmp(mode, "race")) {
        pthread_create(&t, 0, setter, 0);
        LOAD(7, &x);
        int r = x;
        __reach_call_site(99);
        pthread_join(t, 0);
        return r;
    }
    return 99;
}
