/*
 * cpp_condvar.cpp - producer/consumer with std::condition_variable.
 *
 * A one-slot mailbox (a std::optional) guarded by a std::mutex, with
 * std::unique_lock and predicate waits.  The producer sends 1, 2, 3; the
 * consumer receives three values and checks their order and sum.
 *
 * Usage:    ./cpp_condvar
 * Expected: no bug, no deadlock.
 */
#include <cassert>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

class Mailbox {
public:
    void send(int v)
    {
        std::unique_lock<std::mutex> lock(m_);
        not_full_.wait(lock, [this] { return !slot_.has_value(); });
        slot_ = v;
        not_empty_.notify_one();
    }
    int receive()
    {
        std::unique_lock<std::mutex> lock(m_);
        not_empty_.wait(lock, [this] { return slot_.has_value(); });
        int v = *slot_;
        slot_.reset();
        not_full_.notify_one();
        return v;
    }

private:
    std::mutex m_;
    std::condition_variable not_full_, not_empty_;
    std::optional<int> slot_;
};

int main()
{
    Mailbox box;
    int sum = 0, last = 0;
    bool ordered = true;
    std::thread producer([&box] {
        for (int v = 1; v <= 3; v++)
            box.send(v);
    });
    std::thread consumer([&] {
        for (int k = 0; k < 3; k++) {
            int v = box.receive();
            ordered = ordered && v > last;
            last = v;
            sum += v;
        }
    });
    producer.join();
    consumer.join();
    assert(ordered && sum == 6);
    return 0;
}
