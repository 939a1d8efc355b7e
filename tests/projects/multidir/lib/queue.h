/* A small bounded queue protected by a mutex and two condition variables. */
#ifndef QUEUE_H
#define QUEUE_H
#include <pthread.h>

#define QUEUE_CAP 4

struct queue {
  int items[QUEUE_CAP];
  int head, count;
  pthread_mutex_t lock;
  pthread_cond_t not_empty, not_full;
};

void queue_init(struct queue *q);
void queue_put(struct queue *q, int v);
int queue_get(struct queue *q);

#endif
