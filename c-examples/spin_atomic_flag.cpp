// spin_atomic_flag.cpp - C++ spin locks: std::atomic_flag::test_and_set
// and std::atomic<bool>::exchange, each waiting with a pause.
//
// FLAG threads (default 2) take the flag lock and BOOL threads (default 2)
// the bool lock, one critical section each. The optimiser peels the
// loop's first test before the loop (the body has a pause), so a first
// test that fails is a read of its own, and counts.
//
// Usage:    ./spin_atomic_flag [FLAG [BOOL]]
// Expected: no bug.
#include <atomic>
#include <cassert>
#include <cstdlib>
#include <immintrin.h>
#include <pthread.h>

static std::atomic_flag flag_lock = ATOMIC_FLAG_INIT;
static std::atomic<bool> bool_lock{false};
static int flag_counter;
static int bool_counter;

static void *flag_worker(void *)
{
    while (flag_lock.test_and_set(std::memory_order_acquire))
        _mm_pause();
    flag_counter++;
    flag_lock.clear(std::memory_order_release);
    return nullptr;
}

static void *bool_worker(void *)
{
    while (bool_lock.exchange(true, std::memory_order_acquire))
        _mm_pause();
    bool_counter++;
    bool_lock.store(false, std::memory_order_release);
    return nullptr;
}

int main(int argc, char **argv)
{
    int flags = argc > 1 ? atoi(argv[1]) : 2;
    int bools = argc > 2 ? atoi(argv[2]) : 2;
    if (flags < 0 || bools < 0 || flags + bools > 8)
        return 2;
    pthread_t t[8];
    for (int i = 0; i < flags + bools; i++)
        pthread_create(&t[i], nullptr, i < flags ? flag_worker : bool_worker, nullptr);
    for (int i = 0; i < flags + bools; i++)
        pthread_join(t[i], nullptr);
    assert(flag_counter == flags && bool_counter == bools);
    return 0;
}
