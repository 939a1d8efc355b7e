/*
 * channel_garbage.c - a program that scribbles over the tester's control
 * channel.
 *
 * If the environment variable REACH_CHANNEL_FD names a file descriptor, the
 * program opens /proc/self/fd/<that number> for writing and overwrites the
 * first 4096 bytes with a fixed junk pattern (the file is not truncated).
 * Then it does an ordinary, correct two-thread computation.  Without the
 * variable it only does the computation.
 *
 * Usage:    ./channel_garbage
 * Expected: the tester must not crash, hang or trust the corrupted data: it
 *           reports one clear error line about a corrupted channel (or
 *           recovers).  The computation itself is correct: natively it
 *           exits 0.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void scribble_on_channel(void)
{
    const char *fd_text = getenv("REACH_CHANNEL_FD");
    if (fd_text == NULL || *fd_text == '\0')
        return;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%s", fd_text);
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return;
    unsigned char junk[4096];
    for (size_t k = 0; k < sizeof junk; k++)
        junk[k] = (unsigned char)(0xA5 ^ (k * 31));
    ssize_t written = pwrite(fd, junk, sizeof junk, 0);
    (void)written;
    close(fd);
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
    scribble_on_channel();
    pthread_t t1, t2;
    pthread_create(&t1, NULL, worker, NULL);
    pthread_create(&t2, NULL, worker, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert(counter == 2);
    return 0;
}
