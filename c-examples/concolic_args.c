// reach: symbolic
// Sequential: parses its first argument byte by byte. With --symbolic-args
// and an argument of three characters the feasible paths are: not an
// option; -v; -q; another option letter: 4 paths, one execution each.
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc < 2)
        return 0;
    const char *a = argv[1];
    if (a[0] == '-') {
        if (a[1] == 'v')
            puts("verbose");
        else if (a[1] == 'q')
            puts("quiet");
        else
            puts("unknown option");
    } else {
        puts("a file name");
    }
    return 0;
}
