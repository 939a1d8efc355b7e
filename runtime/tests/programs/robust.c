/* Robustness scenarios selected by argv[1]. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int count;

static void *inc(void *x) { pthread_mutex_lock(&m); count++; pthread_mutex_unlock(&m); return x; }

static void *spin_forever(void *x) { for (;;) { } return x; }

static void *lock_500(void *x) {
    for (int i = 0; i < 500; i++) { pthread_mutex_lock(&m); count++; pthread_mutex_unlock(&m); }
    return x;
}

/* Finds the channel among our fds by its memfd name. */
static int channel_fd(void) {
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    char path[64], target[256];
    while (d && (e = readdir(d))) {
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n > 0) {
            target[n] = 0;
            if (strstr(target, "memfd:reach-channel")) return atoi(e->d_name);
        }
    }
    return -1;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "hang")) {
        pid_t child = fork();
        if (child == 0) { for (;;) pause(); }
        printf("%d %d\n", getpid(), child);
        fflush(stdout);
        for (;;) { }
    }
    if (!strcmp(mode, "child-hang")) {
        pthread_t t;
        pthread_create(&t, 0, spin_forever, 0);
        return 0;
    }
    if (!strcmp(mode, "segv")) {
        pthread_mutex_lock(&m);
        *(volatile int *)0 = 1;
    }
    if (!strcmp(mode, "many")) {
        static pthread_t t[200];
        for (int i = 0; i < 200; i++) pthread_create(&t[i], 0, inc, 0);
        for (int i = 0; i < 200; i++) pthread_join(t[i], 0);
        return count == 200 ? 0 : 1;
    }
    if (!strcmp(mode, "too-many")) {
        static pthread_t t[300];
        for (int i = 0; i < 300; i++) pthread_create(&t[i], 0, inc, 0);
        return 0;
    }
    if (!strcmp(mode, "scribble") || !strcmp(mode, "scribble-events")) {
        int fd = channel_fd();
        if (fd < 0) return 42;
        static char junk[1 << 16];
        memset(junk, 0xAB, sizeof junk);
        unsigned prefix_cap = 0;
        if (pread(fd, &prefix_cap, 4, 24) != 4) return 44;
        /* Header, 256 thread slots of 64 bytes, the prefix, 64-byte aligned. */
        off_t events = ((off_t)4096 + 256 * 64 + 4 * (off_t)prefix_cap + 63) & ~(off_t)63;
        off_t at = !strcmp(mode, "scribble") ? 0 : events;
        pthread_mutex_lock(&m);
        pthread_mutex_unlock(&m);
        if (pwrite(fd, junk, sizeof junk, at) != (ssize_t)sizeof junk) return 43;
        return 0;
    }
    if (!strcmp(mode, "fork")) {
        pthread_t t;
        pthread_create(&t, 0, inc, 0);
        pid_t child = fork();
        if (child == 0) {
            /* The child is not controlled: these run for real. */
            pthread_mutex_lock(&m);
            pthread_mutex_unlock(&m);
            pthread_t u;
            pthread_create(&u, 0, inc, 0);
            pthread_join(u, 0);
            printf("child done\n");
            exit(5);
        }
        int st = 0;
        waitpid(child, &st, 0);
        pthread_join(t, 0);
        printf("child exit %d\n", WEXITSTATUS(st));
        return WEXITSTATUS(st) == 5 ? 0 : 1;
    }
    if (!strcmp(mode, "heap")) {
        pthread_mutex_t *hm = malloc(sizeof *hm);
        pthread_mutex_init(hm, 0);
        pthread_t t[2];
        for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, inc, 0);
        pthread_mutex_lock(hm);
        pthread_mutex_unlock(hm);
        for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
        return 0;
    }
    if (!strcmp(mode, "long")) {
        /* 2 creations, 2 x 1000 lock operations, 2 joins, the exit. */
        pthread_t t[2];
        for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, lock_500, 0);
        for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
        return count == 1000 ? 0 : 1;
    }
    if (!strcmp(mode, "busy")) {
        for (;;) { pthread_mutex_lock(&m); pthread_mutex_unlock(&m); }
    }
    if (!strcmp(mode, "chatty")) {
        for (int i = 0; i < 200000; i++) printf("line %d of chatter\n", i);
        return 0;
    }
    return 99;
}
