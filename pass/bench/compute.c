/* Compute-heavy: arithmetic in registers, few memory accesses. */
#include <stdio.h>
int main(void) {
  unsigned long long x = 88172645463325252ULL, acc = 0;
  for (long i = 0; i < 300000000L; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    acc += x % 1000003;
  }
  printf("%llu\n", acc);
  return 0;
}
