// reach: symbolic
// Sequential: reads a three-byte record from standard input. With
// --symbolic-stdin 3 the feasible paths are: 'P' then '1'; 'P' then another
// byte; another first byte with a newline third; another first byte
// without: 4 paths, one execution each.
#include <stdio.h>
#include <unistd.h>

int main(void) {
    unsigned char rec[3] = {0, 0, 0};
    if (read(0, rec, sizeof rec) != (ssize_t)sizeof rec)
        return 0;
    if (rec[0] == 'P') {
        if (rec[1] == '1')
            puts("P1");
        else
            puts("P, another kind");
    } else if (rec[2] == '\n') {
        puts("a short line");
    } else {
        puts("not a record");
    }
    return 0;
}
