// C++ part of the fixture: formats the result (built with $(CXX)).
#include <atomic>
#include <cstdio>
#include <string>

static std::atomic<int> summaries{0};

extern "C" void print_summary(long sum, int items) {
  summaries.fetch_add(1);
  std::string line = "sum=" + std::to_string(sum) + " items=" + std::to_string(items);
  std::puts(line.c_str());
}
