/* Each mode checks the semantics of one primitive and exits 0 if it held. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static sem_t s;
static pthread_barrier_t bar;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static pthread_spinlock_t sl;
static int flag, serials, once_runs, dtor_runs;

static void *sem_waiter(void *x) { sem_wait(&s); return x; }
static void *cond_waiter(void *x) {
    pthread_mutex_lock(&m);
    while (!flag) pthread_cond_wait(&c, &m);
    pthread_mutex_unlock(&m);
    return x;
}
static void *timed_waiter(void *x) {
    struct timespec ts = {0, 0};
    pthread_mutex_lock(&m);
    int rc = pthread_cond_timedwait(&c, &m, &ts);
    pthread_mutex_unlock(&m);
    printf("timedwait=%s\n", rc == ETIMEDOUT ? "timeout" : rc == 0 ? "signalled" : "error");
    return x;
}
static void *barrier_worker(void *x) {
    if (pthread_barrier_wait(&bar) == PTHREAD_BARRIER_SERIAL_THREAD) __atomic_fetch_add(&serials, 1, __ATOMIC_SEQ_CST);
    return x;
}
static void *reader(void *x) { pthread_rwlock_rdlock(&rw); pthread_rwlock_unlock(&rw); return x; }
static void *writer(void *x) { pthread_rwlock_wrlock(&rw); pthread_rwlock_unlock(&rw); return x; }
static void init_once(void) { once_runs++; }
static void *once_worker(void *x) { pthread_once(&once, init_once); return x; }
static void dtor(void *v) { (void)v; pthread_mutex_lock(&m); dtor_runs++; pthread_mutex_unlock(&m); }
static void *key_worker(void *x) { pthread_setspecific(key, &flag); return x; }
static void *exiter(void *x) { pthread_mutex_lock(&m); pthread_mutex_unlock(&m); exit(7); return x; }
extern void __reach_atomic_store(unsigned long, const void *, unsigned long, unsigned) __attribute__((weak));
static unsigned fword;
static void *futex_waiter(void *x) {
    while (__atomic_load_n(&fword, __ATOMIC_SEQ_CST) == 0)
        syscall(SYS_futex, &fword, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
    return x;
}
static void *spinner(void *x) { pthread_spin_lock(&sl); flag++; pthread_spin_unlock(&sl); return x; }

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    pthread_t t[3];
    if (!strcmp(mode, "sem")) {
        sem_init(&s, 0, 0);
        if (sem_trywait(&s) != -1 || errno != EAGAIN) return 10;
        pthread_create(&t[0], 0, sem_waiter, 0);
        sem_post(&s);
        pthread_join(t[0], 0);
        int v = -1;
        sem_getvalue(&s, &v);
        return v == 0 ? 0 : 11;
    }
    if (!strcmp(mode, "cond")) {
        pthread_create(&t[0], 0, cond_waiter, 0);
        pthread_mutex_lock(&m);
        flag = 1;
        pthread_cond_signal(&c);
        pthread_mutex_unlock(&m);
        pthread_join(t[0], 0);
        return 0;
    }
    if (!strcmp(mode, "timedwait")) {
        pthread_create(&t[0], 0, timed_waiter, 0);
        pthread_mutex_lock(&m);
        pthread_cond_signal(&c);
        pthread_mutex_unlock(&m);
        pthread_join(t[0], 0);
        return 0;
    }
    if (!strcmp(mode, "barrier")) {
        pthread_barrier_init(&bar, 0, 3);
        for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, barrier_worker, 0);
        barrier_worker(0);
        for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
        return serials == 1 ? 0 : 12;
    }
    if (!strcmp(mode, "rwlock")) {
        pthread_rwlock_rdlock(&rw);
        pthread_create(&t[0], 0, reader, 0);
        pthread_create(&t[1], 0, writer, 0);
        if (pthread_rwlock_trywrlock(&rw) != EDEADLK) return 13;
        pthread_rwlock_unlock(&rw);
        pthread_join(t[0], 0);
        pthread_join(t[1], 0);
        return 0;
    }
    if (!strcmp(mode, "once")) {
        for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, once_worker, 0);
        once_worker(0);
        for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
        return once_runs == 1 ? 0 : 14;
    }
    if (!strcmp(mode, "keys")) {
        pthread_key_create(&key, dtor);
        for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, key_worker, 0);
        for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
        return dtor_runs == 2 ? 0 : 15;
    }
    if (!strcmp(mode, "recursive")) {
        pthread_mutexattr_t a;
        pthread_mutex_t r;
        pthread_mutexattr_init(&a);
        pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
        pthread_mutex_init(&r, &a);
        pthread_mutex_lock(&r);
        pthread_mutex_lock(&r);
        pthread_mutex_unlock(&r);
        pthread_mutex_unlock(&r);
        pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
        pthread_mutex_t e;
        pthread_mutex_init(&e, &a);
        pthread_mutex_lock(&e);
        if (pthread_mutex_lock(&e) != EDEADLK) return 16;
        if (pthread_mutex_trylock(&e) != EBUSY) return 17;
        pthread_mutex_unlock(&e);
        pthread_mutex_t st = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
        pthread_mutex_lock(&st);
        pthread_mutex_lock(&st);
        pthread_mutex_unlock(&st);
        pthread_mutex_unlock(&st);
        return 0;
    }
    if (!strcmp(mode, "exit-thread")) {
        pthread_create(&t[0], 0, exiter, 0);
        pthread_join(t[0], 0);
        return 0;
    }
    if (!strcmp(mode, "main-pthread-exit")) {
        pthread_create(&t[0], 0, reader, 0);
        pthread_exit(0);
    }
    if (!strcmp(mode, "detach")) {
        pthread_create(&t[0], 0, reader, 0);
        pthread_detach(t[0]);
        return 0;
    }
    if (!strcmp(mode, "spinlock")) {
        pthread_spin_init(&sl, 0);
        pthread_create(&t[0], 0, spinner, 0);
        spinner(0);
        pthread_join(t[0], 0);
        return flag == 2 ? 0 : 18;
    }
    if (!strcmp(mode, "sleep")) {
        sleep(1000);
        usleep(1000000);
        struct timespec ts = {1000, 0};
        nanosleep(&ts, 0);
        sched_yield();
        return 0;
    }
    if (!strcmp(mode, "futex") || !strcmp(mode, "futex-lost")) {
        pthread_create(&t[0], 0, futex_waiter, 0);
        if (__reach_atomic_store) __reach_atomic_store(1, &fword, 4, 5);
        __atomic_store_n(&fword, 1, __ATOMIC_SEQ_CST);
        if (!strcmp(mode, "futex")) syscall(SYS_futex, &fword, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        pthread_join(t[0], 0);
        return 0;
    }
    if (!strcmp(mode, "lost-signal")) {
        pthread_create(&t[0], 0, cond_waiter, 0);
        pthread_mutex_lock(&m);
        pthread_cond_signal(&c);
        pthread_mutex_unlock(&m);
        pthread_join(t[0], 0);
        return 0;
    }
    if (!strcmp(mode, "underscore-exit")) {
        _exit(3);
    }
    return 99;
}
