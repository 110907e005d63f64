// Running a helper program (Graphviz's dot) and collecting what it prints:
// fork and execvp with an argument vector, never a shell, so no file name or
// label is ever interpreted by one. The input is written and both outputs
// read through poll(), so a program that writes a lot before reading all of
// its input cannot deadlock us.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace dcpi::html {

// The program could not be started (not installed, not executable).
class ProgramNotFound : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ProcessOutput {
  int exit_status = 0;  // the exit code; 128 + N if killed by signal N
  std::string out;
  std::string err;
};

// Runs argv[0] (looked up in PATH) with `input` on its standard input.
// Throws ProgramNotFound if it cannot be executed, std::runtime_error for a
// failed pipe or fork.
ProcessOutput run_program(const std::vector<std::string>& argv, const std::string& input);

}  // namespace dcpi::html
