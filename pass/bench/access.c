/* Access-heavy: loads and stores to a global array (shared memory). */
#include <stdio.h>
#define N (1 << 20)
int data[N];
int main(void) {
  long sum = 0;
  for (int round = 0; round < 400; round++) {
    for (int i = 0; i < N; i++) data[i] = data[(i * 7) & (N - 1)] + i;
    for (int i = 0; i < N; i++) sum += data[i];
  }
  printf("%ld\n", sum);
  return 0;
}
