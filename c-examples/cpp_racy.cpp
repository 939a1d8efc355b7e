/*
 * cpp_racy.cpp - a lost update inside a template class.
 *
 * Counter<T> has an unprotected increment (load, add, store).  Two
 * std::threads each increment a shared Counter<long> once; main asserts the
 * result is 2.  The bug sits in an instantiated template, to check that
 * source lines are reported through template code.
 *
 * Usage:    ./cpp_racy
 * Expected: BUG - data race on Counter<long>::value_ and an assertion
 *           failure (value 1) when both loads precede both stores.
 */
#include <cassert>
#include <thread>

template <typename T>
class Counter {
public:
    void increment() { value_ = value_ + 1; } // BUG: not atomic
    T get() const { return value_; }

private:
    T value_{};
};

int main()
{
    Counter<long> counter;
    std::thread t1([&counter] { counter.increment(); });
    std::thread t2([&counter] { counter.increment(); });
    t1.join();
    t2.join();
    assert(counter.get() == 2);
    return 0;
}
