/* reach.h: program inputs for reach-native's concolic testing.
 *
 * Build with `reach-cc ...` (a file that calls these functions gets the
 * shadow computations that record the branches depending on the inputs;
 * REACH_SYMBOLIC=1 gives them to every file); `reach-native` then chooses the inputs of each
 * execution (with z3) as well as its schedule. A run without reach-native
 * gets the defaults: 0 clamped to the range, zero bytes, assumptions ignored.
 */
#ifndef REACH_H
#define REACH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An integer input in lo..hi (hi < lo: any int). `name` identifies it in
 * reports and schedule files (the n-th call with one name is its n-th
 * occurrence). */
int reach_input_int(const char *name, int lo, int hi);

/* Fills buf with len input bytes (the first 64 are symbolic). */
void reach_input_bytes(void *buf, size_t len, const char *name);

/* Only inputs for which cond holds are of interest: an execution where it
 * is false ends quietly (exit status 0). */
void reach_assume(int cond);

#ifdef __cplusplus
}
#endif

#endif
