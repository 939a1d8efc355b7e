/* Producer/consumer over the queue library: prints sum=5050 items=100. */
#include <pthread.h>
#include "queue.h"

void print_summary(long sum, int items);

static struct queue q;
static long total;

static void *producer(void *arg) {
  (void)arg;
  for (int i = 1; i <= 100; i++)
    queue_put(&q, i);
  return 0;
}

static void *consumer(void *arg) {
  (void)arg;
  for (int i = 0; i < 100; i++)
    total += queue_get(&q);
  return 0;
}

int main(void) {
  pthread_t p, c;
  queue_init(&q);
  pthread_create(&p, 0, producer, 0);
  pthread_create(&c, 0, consumer, 0);
  pthread_join(p, 0);
  pthread_join(c, 0);
  print_summary(total, 100);
  return total == 5050 ? 0 : 1;
}
