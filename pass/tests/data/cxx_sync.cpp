#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

template <typename T> struct Box {
  T value{};
  void add(T v) { value += v; }
};

std::mutex m;
std::condition_variable cv;
std::shared_mutex sm;
std::once_flag once;
Box<long> box;
int ready = 0;
int shared_val = 0;
std::atomic<int> a{0};
std::atomic<long> b{0};

int main() {
  std::vector<std::thread> ts;
  for (int i = 0; i < 4; i++) {
    ts.emplace_back([i] {
      std::call_once(once, [] { std::puts("once"); });
      {
        std::lock_guard<std::mutex> g(m);
        box.add(i);
        ready++;
      }
      cv.notify_all();
      {
        std::unique_lock<std::shared_mutex> w(sm);
        shared_val += 1;
      }
      {
        std::shared_lock<std::shared_mutex> r(sm);
        (void)shared_val;
      }
      a.fetch_add(1, std::memory_order_relaxed);
      a.fetch_add(1, std::memory_order_acquire);
      a.fetch_add(1, std::memory_order_release);
      a.fetch_add(1, std::memory_order_acq_rel);
      a.fetch_add(1, std::memory_order_seq_cst);
      (void)a.load(std::memory_order_consume);
      b.store(i, std::memory_order_release);
      long e = b.load(std::memory_order_acquire);
      b.compare_exchange_weak(e, e + 1, std::memory_order_acq_rel, std::memory_order_relaxed);
      b.compare_exchange_strong(e, e + 1);
      std::atomic_thread_fence(std::memory_order_seq_cst);
    });
  }
  {
    std::unique_lock<std::mutex> l(m);
    cv.wait(l, [] { return ready == 4; });
  }
  for (auto &t : ts) t.join();
  std::printf("box=%ld shared=%d a=%d\n", box.value, shared_val, a.load());
  return box.value == 6 && shared_val == 4 && a.load() == 20 ? 0 : 1;
}
