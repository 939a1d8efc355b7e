// reach: symbolic
// Sequential: a command dispatcher on two inputs. Feasible paths: cmd 0;
// cmd 3 with arg < 0; cmd 3 with arg >= 0; cmd 7; cmd 12 with arg == 4;
// cmd 12 with arg != 4; any other cmd: 7 paths, one execution each.
#include <reach.h>
#include <stdio.h>

int main(void) {
    int cmd = reach_input_int("cmd", 0, 20);
    int arg = reach_input_int("arg", -5, 5);
    switch (cmd) {
    case 0:
        puts("reset");
        break;
    case 3:
        if (arg < 0)
            puts("shift left");
        else
            puts("shift right");
        break;
    case 7:
        puts("flush");
        break;
    case 12:
        if (arg == 4)
            puts("four");
        else
            printf("set %d\n", arg);
        break;
    default:
        puts("unknown");
        break;
    }
    return 0;
}
