/* Start-up cost of a real library under reach-native: SQLite (the
 * amalgamation bundled by the libsqlite3-sys crate, built separately) opens
 * an in-memory database in each of two threads, creates a table, inserts a
 * few rows and reads them back. Correct: every thread uses its own
 * connection; SQLite's own mutexes guard the shared state. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include "sqlite3.h"

static int count_rows(void *out, int ncols, char **values, char **names) {
    (void)names;
    if (ncols == 1 && values[0])
        sscanf(values[0], "%d", (int *)out);
    return 0;
}

static void *worker(void *arg) {
    int id = (int)(long)arg;
    sqlite3 *db = NULL;
    int rc = sqlite3_open(":memory:", &db);
    assert(rc == SQLITE_OK);
    rc = sqlite3_exec(db,
                      "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT);"
                      "INSERT INTO t(v) VALUES ('a'), ('b'), ('c');",
                      NULL, NULL, NULL);
    assert(rc == SQLITE_OK);
    int rows = -1;
    rc = sqlite3_exec(db, "SELECT count(*) FROM t;", count_rows, &rows, NULL);
    assert(rc == SQLITE_OK && rows == 3);
    sqlite3_close(db);
    printf("thread %d: %d rows\n", id, rows);
    return NULL;
}

int main(void) {
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return 0;
}
