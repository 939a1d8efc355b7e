// reach: symbolic
// Sequential, two integer inputs: every feasible path through the
// branches below is one execution. Each branch prints, so the compiler
// keeps it a branch. Paths: a > 100 (3 choices of b), a <= 100 with
// 2a == b + 6 (only b's default case: 2a is even, 7 + 6 and 9 + 6 are
// odd), a <= 100 with 2a != b + 6 (3 choices of b): 7 paths.
#include <stdio.h>

int reach_input_int(const char *name, int lo, int hi);

int main(void) {
    int a = reach_input_int("a", -1000, 1000);
    int b = reach_input_int("b", 0, 50);
    if (a > 100)
        puts("big");
    else if (a * 2 == b + 6)
        puts("twice");
    switch (b) {
    case 7:
        puts("seven");
        break;
    case 9:
        puts("nine");
        break;
    default:
        puts("other");
        break;
    }
    return 0;
}
