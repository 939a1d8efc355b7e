/* SQLite in serialized threading mode: THREADS threads share one
 * connection to an in-memory database; each inserts ROWS rows with a
 * prepared statement and reads back how many rows it owns, while SQLite's
 * own recursive mutexes serialise the connection. main checks the totals.
 *
 * usage: sqlite_shared [THREADS [ROWS]]   (defaults: 3 threads, 10 rows)
 * Exits 0 when every count and sum is right.
 */
#include <sqlite3.h>

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static sqlite3 *db;
static int rows = 10;

static void exec(const char *sql)
{
    char *error = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &error) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, error ? error : "?");
        abort();
    }
}

static sqlite3_int64 query_int(const char *sql, int arg)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    assert(rc == SQLITE_OK);
    if (arg >= 0)
        sqlite3_bind_int(st, 1, arg);
    rc = sqlite3_step(st);
    assert(rc == SQLITE_ROW);
    sqlite3_int64 v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void *worker(void *arg)
{
    int me = (int)(long)arg;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, "INSERT INTO t(owner, value) VALUES (?1, ?2)", -1, &st, NULL);
    assert(rc == SQLITE_OK);
    for (int i = 0; i < rows; i++) {
        sqlite3_bind_int(st, 1, me);
        sqlite3_bind_int(st, 2, me * 100 + i);
        rc = sqlite3_step(st);
        assert(rc == SQLITE_DONE);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    assert(query_int("SELECT count(*) FROM t WHERE owner = ?1", me) == rows);
    return NULL;
}

static int parse(const char *text, int low, int high, int *out)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || v < low || v > high)
        return 0;
    *out = (int)v;
    return 1;
}

int main(int argc, char **argv)
{
    int threads = 3;
    if (argc > 3 || (argc > 1 && !parse(argv[1], 1, 16, &threads)) ||
        (argc > 2 && !parse(argv[2], 1, 1000, &rows))) {
        fprintf(stderr, "usage: %s [THREADS (1-16)] [ROWS (1-1000)]\n", argv[0]);
        return 2;
    }
    assert(sqlite3_threadsafe() == 1);
    int rc = sqlite3_open_v2(":memory:", &db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, NULL);
    assert(rc == SQLITE_OK);
    exec("CREATE TABLE t(id INTEGER PRIMARY KEY, owner INT NOT NULL, value INT NOT NULL)");

    pthread_t tid[16];
    for (int i = 0; i < threads; i++)
        assert(pthread_create(&tid[i], NULL, worker, (void *)(long)i) == 0);
    for (int i = 0; i < threads; i++)
        assert(pthread_join(tid[i], NULL) == 0);

    sqlite3_int64 total = query_int("SELECT count(*) FROM t", -1);
    sqlite3_int64 sum = query_int("SELECT sum(value) FROM t", -1);
    sqlite3_int64 want = 0;
    for (int me = 0; me < threads; me++)
        for (int i = 0; i < rows; i++)
            want += me * 100 + i;
    assert(total == (sqlite3_int64)threads * rows);
    assert(sum == want);
    assert(sqlite3_close(db) == SQLITE_OK);
    printf("sqlite_shared: %d threads x %d rows, totals right\n", threads, rows);
    return 0;
}
