/*
 * cpp_thread_mutex.cpp - std::thread + std::mutex + std::lock_guard.
 *
 * Two std::threads each add to a shared counter (a member of an object
 * shared by reference) inside a lock_guard scope.
 *
 * Usage:    ./cpp_thread_mutex
 * Expected: no bug.  2 Mazurkiewicz traces (order of the critical sections).
 */
#include <cassert>
#include <mutex>
#include <thread>

class Account {
public:
    void deposit(int amount)
    {
        std::lock_guard<std::mutex> guard(lock_);
        balance_ += amount;
    }
    int balance()
    {
        std::lock_guard<std::mutex> guard(lock_);
        return balance_;
    }

private:
    std::mutex lock_;
    int balance_ = 0;
};

int main()
{
    Account account;
    std::thread t1([&account] { account.deposit(10); });
    std::thread t2([&account] { account.deposit(32); });
    t1.join();
    t2.join();
    assert(account.balance() == 42);
    return 0;
}
