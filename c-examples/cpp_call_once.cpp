/*
 * cpp_call_once.cpp - std::call_once from three threads.
 *
 * Three threads need a lazily built table; std::call_once runs the builder
 * exactly once, and every caller sees the finished table when call_once
 * returns.
 *
 * Usage:    ./cpp_call_once
 * Expected: no bug, no data race.
 */
#include <cassert>
#include <mutex>
#include <thread>
#include <vector>

static std::once_flag built;
static std::vector<int> squares;
static int builds = 0;

static void build()
{
    builds++;
    for (int k = 0; k < 5; k++)
        squares.push_back(k * k);
}

static int lookup(int k)
{
    std::call_once(built, build);
    return squares.at(static_cast<size_t>(k));
}

int main()
{
    int results[3] = {0, 0, 0};
    std::thread t[3];
    for (int i = 0; i < 3; i++)
        t[i] = std::thread([i, &results] { results[i] = lookup(i + 1); });
    for (auto &th : t)
        th.join();
    assert(builds == 1);
    assert(results[0] == 1 && results[1] == 4 && results[2] == 9);
    return 0;
}
