#include "queue.h"

void queue_init(struct queue *q) {
  q->head = 0;
  q->count = 0;
  pthread_mutex_init(&q->lock, 0);
  pthread_cond_init(&q->not_empty, 0);
  pthread_cond_init(&q->not_full, 0);
}

void queue_put(struct queue *q, int v) {
  pthread_mutex_lock(&q->lock);
  while (q->count == QUEUE_CAP)
    pthread_cond_wait(&q->not_full, &q->lock);
  q->items[(q->head + q->count) % QUEUE_CAP] = v;
  q->count++;
  pthread_cond_signal(&q->not_empty);
  pthread_mutex_unlock(&q->lock);
}

int queue_get(struct queue *q) {
  pthread_mutex_lock(&q->lock);
  while (q->count == 0)
    pthread_cond_wait(&q->not_empty, &q->lock);
  int v = q->items[q->head];
  q->head = (q->head + 1) % QUEUE_CAP;
  q->count--;
  pthread_cond_signal(&q->not_full);
  pthread_mutex_unlock(&q->lock);
  return v;
}
