// read_ground_truth (ground_truth.h): the plugin's text file, versions 1
// and 2 (docs/exec-counts-format.md). Strict: every field must be a whole
// token of the right kind (hex PCs, decimal counts, no signs), a line has
// exactly its fields, and anything else is a one-line error naming the line.
#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <vector>

#include "analysis/calc/truth/ground_truth.h"

namespace dcpi::calc {

namespace {

// A problem with the current line; read_ground_truth adds its number.
struct LineError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<std::string_view> split_words(std::string_view line) {
  if (const size_t hash = line.find('#'); hash != std::string_view::npos)
    line = line.substr(0, hash);
  std::vector<std::string_view> words;
  size_t at = 0;
  while (at < line.size()) {
    const size_t start = line.find_first_not_of(" \t\r", at);
    if (start == std::string_view::npos) break;
    const size_t end = std::min(line.find_first_of(" \t\r", start), line.size());
    words.push_back(line.substr(start, end - start));
    at = end;
  }
  return words;
}

uint64_t number(std::string_view word, int base, const char* what) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value, base);
  if (word.empty() || error != std::errc() || end != word.data() + word.size())
    throw LineError(std::string("bad ") + what + " '" + std::string(word.substr(0, 40)) + "'");
  return value;
}
uint64_t pc(std::string_view word) { return number(word, 16, "address"); }
uint64_t count(std::string_view word) { return number(word, 10, "count"); }

void expect_fields(const std::vector<std::string_view>& words, size_t low, size_t high) {
  if (words.size() < low || words.size() > high)
    throw LineError("'" + std::string(words[0]) + "' takes " +
                    (low == high ? std::to_string(low - 1)
                                 : std::to_string(low - 1) + " or " + std::to_string(high - 1)) +
                    " fields, not " + std::to_string(words.size() - 1));
}

bool is_event_name(std::string_view name) {
  return !name.empty() && name.size() <= 32 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// The lines only version 2 has.
void parse_version2_line(const std::vector<std::string_view>& words, GroundTruth& truth) {
  const std::string_view kind = words[0];
  if (truth.version < 2) throw LineError("'" + std::string(kind) + "' needs version 2");
  if (kind == "machine") {
    expect_fields(words, 2, 2);
    if (words[1] != "qemu" && words[1] != "ev5")
      throw LineError("unknown machine '" + std::string(words[1].substr(0, 32)) +
                      "' (qemu or ev5)");
    truth.machine = std::string(words[1]);
  } else if (kind == "cycles") {
    expect_fields(words, 3, 3);
    truth.add_cycles(pc(words[1]), count(words[2]));
  } else if (kind == "stall") {
    expect_fields(words, 4, 5);
    const std::optional<TruthCause> cause = parse_truth_cause(words[2]);
    if (!cause)
      throw LineError("unknown stall cause '" + std::string(words[2].substr(0, 32)) + "'");
    TruthStall stall{.cause = *cause, .cycles = count(words[3])};
    if (words.size() == 5) stall.culprit = pc(words[4]);
    truth.add_stall(pc(words[1]), stall);
  } else {  // event
    expect_fields(words, 3, 3);
    if (!is_event_name(words[1]))
      throw LineError("bad event name '" + std::string(words[1].substr(0, 40)) + "'");
    truth.add_event(std::string(words[1]), count(words[2]));
  }
}

void parse_line(const std::vector<std::string_view>& words, GroundTruth& truth) {
  const std::string_view kind = words[0];
  if (kind == "insn") {
    expect_fields(words, 3, 3);
    truth.add_instruction(pc(words[1]), count(words[2]));
  } else if (kind == "edge") {
    expect_fields(words, 4, 4);
    truth.add_edge(pc(words[1]), pc(words[2]), count(words[3]));
  } else if (kind == "cpus" || kind == "vcpus") {
    expect_fields(words, 2, 2);
    truth.vcpus = count(words[1]);
  } else if (kind == "machine" || kind == "cycles" || kind == "stall" || kind == "event") {
    parse_version2_line(words, truth);
  } else {
    throw LineError("unknown line kind '" + std::string(kind.substr(0, 32)) + "'");
  }
}

void parse_header(const std::vector<std::string_view>& words, GroundTruth& truth) {
  if (words.size() != 2 || words[0] != "dcpi-exec-counts" || (words[1] != "1" && words[1] != "2"))
    throw LineError("expected 'dcpi-exec-counts 1' or 'dcpi-exec-counts 2'");
  truth.version = words[1] == "1" ? 1 : 2;
}

}  // namespace

bool read_ground_truth(std::istream& in, GroundTruth& truth, std::string& error) {
  std::string line;
  size_t line_number = 0;
  bool header = false;
  try {
    while (std::getline(in, line)) {
      ++line_number;
      const std::vector<std::string_view> words = split_words(line);
      if (words.empty()) continue;
      if (!header) {
        parse_header(words, truth);
        header = true;
      } else {
        parse_line(words, truth);
      }
    }
  } catch (const LineError& problem) {
    error = "line " + std::to_string(line_number) + ": " + problem.what();
    return false;
  }
  if (!header) {
    error = "empty file: expected 'dcpi-exec-counts 1' or 'dcpi-exec-counts 2'";
    return false;
  }
  // Σ stalls at a PC is normally at most its cycles, but not required: the
  // model may refund cycles at a block's head (an instruction that issued
  // with its predecessor) that it charged to a stall elsewhere.
  return true;
}

}  // namespace dcpi::calc
