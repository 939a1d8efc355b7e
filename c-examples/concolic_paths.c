// Sequential, two integer inputs: every feasible path through the
// branches below is one execution (6 paths; the branch `a > 10 && a < 5`
// can never be taken, so it adds no path).
#include <stdio.h>

int reach_input_int(const char *name, int lo, int hi);

static int classify(int a, int b) {
    int r = 0;
    if (a > 100)
        r += 1;
    else if (a * 2 == b + 6)
        r += 2;
    if (a > 10 && a < 5)
        r += 100; // infeasible
    switch (b) {
    case 7:
        r += 10;
        break;
    case 9:
        r += 20;
        break;
    default:
        break;
    }
    return r;
}

int main(void) {
    int a = reach_input_int("a", -1000, 1000);
    int b = reach_input_int("b", 0, 50);
    printf("classify(%d, %d) = %d\n", a, b, classify(a, b));
    return 0;
}
