// Shared by the unit tests: a fresh directory under the system temp dir for
// one test, removed with everything in it when the test ends.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>
#include <system_error>

namespace hetprobe {

class ScratchDir {
 public:
  // PREFIX_PID_RANDOM: tests of several processes (ctest -j) never share one.
  explicit ScratchDir(const std::string& prefix)
      : path_(std::filesystem::temp_directory_path() /
              (prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(std::random_device{}()))) {
    std::filesystem::create_directory(path_);  // throws, failing the test, when it cannot
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace hetprobe
