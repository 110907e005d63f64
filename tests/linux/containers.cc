// A C++ program built with Debian's stock alpha-linux-gnu-g++ (libstdc++ 12,
// dynamic): vector, sort, unordered_map, string, an exception thrown and
// caught. Its output must be identical under our kernel and qemu-alpha.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

static int parse(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument("not a number: '" + text + "'");
  return std::stoi(text);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 30000;
  std::vector<unsigned> values(n);
  unsigned x = 2463534242u;
  for (auto& v : values) v = (x ^= x << 13, x ^= x >> 17, x ^= x << 5);
  std::sort(values.begin(), values.end());
  std::unordered_map<std::string, int> counts;
  for (unsigned v : values) ++counts["k" + std::to_string(v % 997)];
  std::string longest;
  for (const auto& [key, count] : counts)
    if (count > counts[longest] || (count == counts[longest] && key < longest)) longest = key;
  std::cout << "sorted " << values.size() << " min " << values.front() << " max " << values.back()
            << " keys " << counts.size() << " most " << longest << '\n';
  try {
    parse("12x");
  } catch (const std::invalid_argument& error) {
    std::cout << "caught: " << error.what() << '\n';
  }
  return 0;
}
