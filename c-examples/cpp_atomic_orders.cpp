/*
 * cpp_atomic_orders.cpp - std::atomic<int> with every memory order, in a
 * message-passing pattern.
 *
 * The producer fills a payload (plain ints), then publishes it with a
 * release store to `ready`.  The consumer checks `ready` once with an
 * acquire load (no spinning) and, if set, reads the payload.  Around that
 * the program uses each std::memory_order once: relaxed (a statistics
 * counter), consume (a second load of the flag), acquire / release (the
 * publication), acq_rel (fetch_add on a ticket and a successful or failing
 * compare_exchange), seq_cst (exchange and a fence).
 * Systematic testing assumes sequential consistency, so all of these
 * behave as seq_cst; the point is that every order is instrumented.
 *
 * Usage:    ./cpp_atomic_orders
 * Expected: no bug, no data race.
 */
#include <atomic>
#include <cassert>
#include <thread>

static int payload[2];
static std::atomic<int> ready{0};
static std::atomic<int> stats{0};
static std::atomic<int> ticket{0};
static std::atomic<int> owner{0};
static std::atomic<int> last_writer{0};

static void producer()
{
    payload[0] = 40;
    payload[1] = 2;
    stats.fetch_add(1, std::memory_order_relaxed);
    ready.store(1, std::memory_order_release);
    ticket.fetch_add(1, std::memory_order_acq_rel);
    last_writer.exchange(1, std::memory_order_seq_cst);
}

static int consumed = -1;

static void consumer()
{
    if (ready.load(std::memory_order_acquire) == 1) {
        consumed = payload[0] + payload[1];
        assert(consumed == 42);
        assert(ready.load(std::memory_order_consume) == 1);
    }
    stats.fetch_add(1, std::memory_order_relaxed);
    int expected = 0;
    // Fails if the producer's ticket came first; either way `owner` ends at 2.
    if (!ticket.compare_exchange_strong(expected, 1, std::memory_order_acq_rel,
                                        std::memory_order_acquire))
        assert(expected == 1);
    owner.store(2, std::memory_order_release);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    last_writer.exchange(2, std::memory_order_seq_cst);
}

int main()
{
    std::thread p(producer);
    std::thread c(consumer);
    p.join();
    c.join();
    assert(stats.load(std::memory_order_relaxed) == 2);
    int t = ticket.load(std::memory_order_seq_cst);
    assert(t == 1 || t == 2);
    assert(owner.load(std::memory_order_acquire) == 2);
    int lw = last_writer.load();
    assert(lw == 1 || lw == 2);
    assert(consumed == -1 || consumed == 42);
    return 0;
}
