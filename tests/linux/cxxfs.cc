// std::filesystem and friends under libstdc++ 12, as C++17 programs use
// them: create_directories, copy_file (libstdc++'s goes through sendfile,
// a small file and a 100 KB one), canonical through "..",
// recursive_directory_iterator, file_size, rename, permissions, space
// (statfs), remove_all (the *at() calls); hardware_concurrency and
// random_device. Relative paths, so that qemu-alpha run in an empty
// directory prints the same.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

int main() {
  const fs::path root = "cxxfs";
  fs::create_directories(root / "a" / "b");
  std::ofstream(root / "a" / "f.txt") << "filesystem\n";
  fs::copy_file(root / "a" / "f.txt", root / "g.txt");
  std::cout << "copy_file size " << fs::file_size(root / "g.txt") << "\n";
  std::string big;
  for (int i = 0; big.size() < 100000; ++i) big += "line " + std::to_string(i) + "\n";
  big.resize(100000);
  std::ofstream(root / "big.txt") << big;
  fs::copy_file(root / "big.txt", root / "a" / "big_copy.txt");
  std::ifstream copied(root / "a" / "big_copy.txt");
  const std::string back{std::istreambuf_iterator<char>(copied), std::istreambuf_iterator<char>()};
  std::cout << "copy_file of " << fs::file_size(root / "a" / "big_copy.txt")
            << " bytes, the same bytes: " << (back == big) << "\n";
  const fs::path canonical = fs::canonical(root / "a" / ".." / "g.txt");
  std::cout << "canonical ends cxxfs/g.txt: "
            << (canonical.parent_path().filename() == "cxxfs" && canonical.filename() == "g.txt")
            << "\n";
  std::vector<std::string> names;
  for (const auto& entry : fs::recursive_directory_iterator(root))
    names.push_back(fs::relative(entry.path(), root).string() + (entry.is_directory() ? "/" : ""));
  std::sort(names.begin(), names.end());
  for (const auto& name : names) std::cout << "entry " << name << "\n";
  fs::rename(root / "g.txt", root / "h.txt");
  fs::permissions(root / "h.txt", fs::perms::owner_read);
  std::cout << "read-only: "
            << ((fs::status(root / "h.txt").permissions() & fs::perms::owner_write) ==
                fs::perms::none)
            << "\n";
  std::cout << "space has capacity: " << (fs::space(root).capacity > 0) << "\n";
  std::cout << "removed " << fs::remove_all(root) << ", exists " << fs::exists(root) << "\n";
  std::cout << "hardware_concurrency > 0: " << (std::thread::hardware_concurrency() > 0) << "\n";
  std::random_device device;
  std::cout << "random_device entropy >= 0: " << (device.entropy() >= 0) << "\n";
  return 0;
}
