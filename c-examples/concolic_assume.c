// reach: symbolic
// Sequential: only odd inputs are of interest. The first execution gets the
// default 0, which the assumption rejects: it ends quietly (no bug) and the
// next one gets an odd x. Then x < 10 and x >= 10 (odd) are the feasible
// paths; x == 50 contradicts the assumption, so the abort is unreachable:
// 3 executions, no bug.
#include <reach.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int x = reach_input_int("x", 0, 100);
    reach_assume(x % 2 == 1);
    if (x < 10)
        puts("small");
    else
        puts("large");
    if (x == 50)
        abort();
    return 0;
}
