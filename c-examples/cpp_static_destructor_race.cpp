/*
 * cpp_static_destructor_race.cpp - a static destructor against a live thread.
 *
 * A global Registry counts lookups; its destructor marks it closed.  main
 * starts a detached std::thread that looks entries up and returns without
 * joining it.  The static destructor runs at exit while the thread may still
 * run: the destructor's store races with the thread's unprotected reads.
 *
 * Usage:    ./cpp_static_destructor_race
 * Expected: data race (Registry::~Registry against Registry::lookup).
 */
#include <thread>

class Registry {
public:
    ~Registry() { open_ = false; }
    int lookup(int key) const { return open_ ? key * 2 : -1; }

private:
    bool open_ = true;
};

static Registry registry;

int main()
{
    std::thread worker([] {
        volatile int sink = 0;
        for (int k = 0; k < 2; k++)
            sink = sink + registry.lookup(k);
    });
    worker.detach();
    return 0;
}
