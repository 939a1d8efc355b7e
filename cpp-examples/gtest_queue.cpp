// A GoogleTest suite of a small ring queue: one test pushes from two
// threads under the queue's lock (correct), one without it (a data race
// on the tail, and a lost push in some interleavings). Natively both
// usually pass; `reach-native test` explores each test case by itself.
#include <gtest/gtest.h>

#include <mutex>
#include <thread>

namespace {

class RingQueue {
 public:
  void push_locked(int value) {
    std::lock_guard<std::mutex> guard(lock_);
    push_unlocked(value);
  }

  void push_unlocked(int value) {
    slots_[tail_ % kSlots] = value;
    tail_ = tail_ + 1;
  }

  unsigned size() {
    std::lock_guard<std::mutex> guard(lock_);
    return tail_;
  }

 private:
  static constexpr unsigned kSlots = 8;
  std::mutex lock_;
  int slots_[kSlots] = {};
  unsigned tail_ = 0;
};

TEST(RingQueue, LockedPushesKeepEveryItem) {
  RingQueue queue;
  std::thread a([&] { queue.push_locked(1); });
  std::thread b([&] { queue.push_locked(2); });
  a.join();
  b.join();
  EXPECT_EQ(queue.size(), 2u);
}

TEST(RingQueue, UnlockedPushesRace) {
  RingQueue queue;
  std::thread a([&] { queue.push_unlocked(1); });
  std::thread b([&] { queue.push_unlocked(2); });
  a.join();
  b.join();
  EXPECT_EQ(queue.size(), 2u);
}

}  // namespace
