/* SQLite with a database file in write-ahead-log mode: THREADS threads each
 * open their own connection to one file in a fresh temporary directory, set
 * a busy timeout, and run ROWS write transactions (BEGIN IMMEDIATE, INSERT,
 * COMMIT) plus a read, so the connections contend for the WAL's locks and
 * SQLite's busy handler sleeps and retries. main checks the totals and
 * removes the files.
 *
 * usage: sqlite_wal [THREADS [ROWS]]   (defaults: 2 threads, 5 rows)
 * The directory is created under $TMPDIR (else /tmp) with mkdtemp, so
 * concurrent runs do not share files. Exits 0 when every count is right.
 */
#include <sqlite3.h>

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[4096];
static int rows = 5;

static sqlite3 *open_db(void)
{
    sqlite3 *db;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        fprintf(stderr, "open %s: %s\n", path, sqlite3_errstr(rc));
        abort();
    }
    sqlite3_busy_timeout(db, 10000);
    return db;
}

static void exec(sqlite3 *db, const char *sql)
{
    char *error = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &error) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, error ? error : "?");
        abort();
    }
}

static sqlite3_int64 query_int(sqlite3 *db, const char *sql, int arg)
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
    sqlite3 *db = open_db();
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, "INSERT INTO t(owner, value) VALUES (?1, ?2)", -1, &st, NULL);
    assert(rc == SQLITE_OK);
    for (int i = 0; i < rows; i++) {
        exec(db, "BEGIN IMMEDIATE");
        sqlite3_bind_int(st, 1, me);
        sqlite3_bind_int(st, 2, i);
        rc = sqlite3_step(st);
        assert(rc == SQLITE_DONE);
        sqlite3_reset(st);
        exec(db, "COMMIT");
    }
    sqlite3_finalize(st);
    assert(query_int(db, "SELECT count(*) FROM t WHERE owner = ?1", me) == rows);
    assert(sqlite3_close(db) == SQLITE_OK);
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
    int threads = 2;
    if (argc > 3 || (argc > 1 && !parse(argv[1], 1, 16, &threads)) ||
        (argc > 2 && !parse(argv[2], 1, 1000, &rows))) {
        fprintf(stderr, "usage: %s [THREADS (1-16)] [ROWS (1-1000)]\n", argv[0]);
        return 2;
    }
    const char *tmp = getenv("TMPDIR");
    char dir[4000];
    snprintf(dir, sizeof dir, "%s/sqlite-wal-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path, sizeof path, "%s/db", dir);

    sqlite3 *db = open_db();
    exec(db, "PRAGMA journal_mode=WAL");
    exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, owner INT NOT NULL, value INT NOT NULL)");

    pthread_t tid[16];
    for (int i = 0; i < threads; i++)
        assert(pthread_create(&tid[i], NULL, worker, (void *)(long)i) == 0);
    for (int i = 0; i < threads; i++)
        assert(pthread_join(tid[i], NULL) == 0);

    assert(query_int(db, "SELECT count(*) FROM t", -1) == (sqlite3_int64)threads * rows);
    assert(sqlite3_close(db) == SQLITE_OK);

    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        char file[4200];
        snprintf(file, sizeof file, "%s%s", path, suffixes[i]);
        unlink(file);
    }
    rmdir(dir);
    printf("sqlite_wal: %d connections x %d transactions, totals right\n", threads, rows);
    return 0;
}
