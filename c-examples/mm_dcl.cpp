/*
 * mm_dcl.cpp - double-checked locking in C++: two threads get a lazily
 * built singleton through std::atomic<Config*> and a std::mutex.  The
 * singleton's field is a relaxed std::atomic<int> so the model sees it
 * (a real one would be plain memory).
 *
 * With ORDER relaxed the pointer is published and read with
 * memory_order_relaxed: a thread that sees the pointer without the lock
 * may read the field before the constructor's store under RC11.  With
 * ORDER acquire (memory_order_release store, memory_order_acquire load)
 * it sees 42.
 *
 * Usage:    ./mm_dcl_cpp [relaxed|acquire]   (default relaxed)
 * Expected: relaxed: assertion failure under --memory-model rc11;
 *           acquire: no bug.
 */
#include <atomic>
#include <cassert>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

struct Config {
    std::atomic<int> answer{0};
};

static std::atomic<Config *> instance{nullptr};
static std::mutex lock;
static bool acquire = false;

static Config *get_config()
{
    Config *c = instance.load(acquire ? std::memory_order_acquire : std::memory_order_relaxed);
    if (c)
        return c;
    std::lock_guard<std::mutex> guard(lock);
    c = instance.load(std::memory_order_relaxed);
    if (!c) {
        c = new Config;
        c->answer.store(42, std::memory_order_relaxed);
        instance.store(c, acquire ? std::memory_order_release : std::memory_order_relaxed);
    }
    return c;
}

int main(int argc, char **argv)
{
    if (argc > 2 || (argc == 2 && std::strcmp(argv[1], "relaxed") != 0 &&
                     std::strcmp(argv[1], "acquire") != 0)) {
        std::fprintf(stderr, "usage: mm_dcl_cpp [relaxed|acquire]\n");
        return 2;
    }
    acquire = argc == 2 && std::strcmp(argv[1], "acquire") == 0;
    auto user = [] { assert(get_config()->answer.load(std::memory_order_relaxed) == 42); };
    std::thread a(user), b(user);
    a.join();
    b.join();
    delete instance.load();
    return 0;
}
