// reach: symbolic
// Sequential: a loop whose bound is an input n in 0..5, then a test on the
// input that only some iterations counts reach. Feasible paths: n = 0, 1,
// 2, 3 (one each); n = 4 and n = 5 each with limit == n and limit != n,
// where limit is a second input: 4 + 2 + 2 = 8 paths, one execution each.
#include <reach.h>
#include <stdio.h>

int main(void) {
    int n = reach_input_int("n", 0, 5);
    int limit = reach_input_int("limit", 0, 9);
    int done = 0;
    for (int i = 0; i < n; i++) {
        printf("step %d\n", i);
        done++;
    }
    if (done >= 4) {
        if (limit == n)
            puts("at the limit");
        else
            puts("under the limit");
    }
    return 0;
}
