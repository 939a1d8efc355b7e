/*
 * cpp_shared_mutex.cpp - std::shared_mutex with shared and unique locks.
 *
 * Two readers take std::shared_lock and read a pair; one writer takes
 * std::unique_lock and updates both halves.  Readers must never see a
 * half-updated pair.
 *
 * Usage:    ./cpp_shared_mutex
 * Expected: no bug, no data race.
 */
#include <cassert>
#include <mutex>
#include <shared_mutex>
#include <thread>

struct Pair {
    int a = 0;
    int b = 0;
};

int main()
{
    std::shared_mutex rw;
    Pair p;
    int seen[2] = {-1, -1};

    auto reader = [&](int id) {
        std::shared_lock<std::shared_mutex> lock(rw);
        assert(p.a == p.b);
        seen[id] = p.a;
    };
    std::thread r1(reader, 0);
    std::thread r2(reader, 1);
    std::thread w([&] {
        std::unique_lock<std::shared_mutex> lock(rw);
        p.a = 5;
        p.b = 5;
    });
    r1.join();
    r2.join();
    w.join();
    assert((seen[0] == 0 || seen[0] == 5) && (seen[1] == 0 || seen[1] == 5));
    return 0;
}
