// The ring queue of gtest_queue.cpp under Catch2 (version 2, the header of
// Debian's catch2 package, linked with its prebuilt main): one correct
// test case and one with a lost update that an interleaving shows.
#include <catch2/catch.hpp>

#include <mutex>
#include <thread>

namespace {

struct Counter {
  std::mutex lock;
  int value = 0;

  void add_locked() {
    std::lock_guard<std::mutex> guard(lock);
    value = value + 1;
  }

  // Reads and writes under the lock, but in two critical sections: no
  // data race, yet an update can be lost.
  void add_in_two_steps() {
    int seen;
    {
      std::lock_guard<std::mutex> guard(lock);
      seen = value;
    }
    std::lock_guard<std::mutex> guard(lock);
    value = seen + 1;
  }
};

}  // namespace

TEST_CASE("locked increments are all counted", "[counter]") {
  Counter counter;
  std::thread a([&] { counter.add_locked(); });
  std::thread b([&] { counter.add_locked(); });
  a.join();
  b.join();
  REQUIRE(counter.value == 2);
}

TEST_CASE("increments in two steps, lose one", "[counter]") {
  Counter counter;
  std::thread a([&] { counter.add_in_two_steps(); });
  std::thread b([&] { counter.add_in_two_steps(); });
  a.join();
  b.join();
  REQUIRE(counter.value == 2);
}
