// read_ground_truth (ground_truth.h): the one C++ reader of the truth file
// the plugins write, every version up to DCPI_TRUTH_VERSION_NEWEST
// (firmware/truth_format.h, docs/exec-counts-format.md). Strict: every field
// must be a whole token of the right kind (hex PCs, decimal counts, no
// signs), a line has exactly its fields, a record kind must exist in the
// file's version, and anything else is a one-line error naming the line. It
// never skips a line it cannot read: a truth that lost lines would score
// estimates wrongly without a word.
#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdint>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <vector>

#include "analysis/calc/truth/ground_truth.h"
#include "firmware/truth_format.h"

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

// The record kind a line starts with, if its version has it.
const truth_format::RecordInfo& record_of(std::string_view word, int version) {
  if (word == DCPI_TRUTH_CPUS_ALIAS) return truth_format::record_info(truth_format::Record::kVcpus);
  for (const truth_format::RecordInfo& r : truth_format::kRecords) {
    if (word != r.word) continue;
    if (r.since > version)
      throw LineError("'" + std::string(word) + "' needs version " + std::to_string(r.since));
    return r;
  }
  throw LineError("unknown line kind '" + std::string(word.substr(0, 32)) + "'");
}

void expect_fields(const std::vector<std::string_view>& words, truth_format::Record record) {
  const auto [low, high] = truth_format::field_count(record);
  const size_t given = words.size() - 1;
  if (given < size_t(low) || given > size_t(high))
    throw LineError(
        "'" + std::string(words[0]) + "' takes " +
        (low == high ? std::to_string(low) : std::to_string(low) + " or " + std::to_string(high)) +
        " fields, not " + std::to_string(given));
}

bool is_event_name(std::string_view name) {
  return !name.empty() && name.size() <= 32 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

void parse_machine(std::string_view name, GroundTruth& truth) {
  if (name != DCPI_TRUTH_MACHINE_QEMU && name != DCPI_TRUTH_MACHINE_EV5)
    throw LineError("unknown machine '" + std::string(name.substr(0, 32)) + "' (qemu or ev5)");
  truth.machine = std::string(name);
}

void parse_stall(const std::vector<std::string_view>& words, GroundTruth& truth) {
  const std::optional<StallCause> cause = parse_truth_cause(words[2]);
  if (!cause) throw LineError("unknown stall cause '" + std::string(words[2].substr(0, 32)) + "'");
  TruthStall stall{.cause = *cause, .cycles = count(words[3])};
  if (words.size() == 5) stall.culprit = pc(words[4]);
  truth.add_stall(pc(words[1]), stall);
}

void parse_event(const std::vector<std::string_view>& words, GroundTruth& truth) {
  if (!is_event_name(words[1]))
    throw LineError("bad event name '" + std::string(words[1].substr(0, 40)) + "'");
  truth.add_event(std::string(words[1]), count(words[2]));
}

uint32_t small_count(std::string_view word, const char* what) {
  const uint64_t n = number(word, 10, what);
  if (n > UINT32_MAX)
    throw LineError(std::string(what) + " " + std::string(word) + " is too large");
  return static_cast<uint32_t>(n);
}

GroundTruth::SpaceId parse_space_id(std::string_view pid, std::string_view generation) {
  return {small_count(pid, "pid"), small_count(generation, "generation")};
}

// `space PID GENERATION`: the per-PC lines that follow are that space's.
GroundTruth* parse_space(const std::vector<std::string_view>& words, GroundTruth& truth) {
  const GroundTruth::SpaceId id = parse_space_id(words[1], words[2]);
  std::shared_ptr<GroundTruth>& space = truth.spaces[id];
  if (space)
    throw LineError("space " + std::string(words[1]) + " " + std::string(words[2]) +
                    " appears twice");
  space = std::make_shared<GroundTruth>();
  space->version = truth.version;
  space->machine = truth.machine;
  return space.get();
}

void parse_map(const std::vector<std::string_view>& words, GroundTruth& truth) {
  GroundTruth::Mapping m{.space = parse_space_id(words[1], words[2]),
                         .load = pc(words[3]),
                         .size = pc(words[4]),
                         .link = pc(words[5]),
                         .build_id = std::string(words[6]),
                         .path = std::string(words[7])};
  if (m.size == 0 || m.load + m.size < m.load) throw LineError("empty or wrapping map range");
  if (m.build_id == DCPI_TRUTH_NO_BUILD_ID) m.build_id.clear();
  truth.maps.push_back(std::move(m));
}

// A per-PC record: into the whole file's sums, and its space's lines.
void parse_pc_line(truth_format::Record record, const std::vector<std::string_view>& words,
                   GroundTruth& truth) {
  using truth_format::Record;
  switch (record) {
    case Record::kInsn:
      return truth.add_instruction(pc(words[1]), count(words[2]));
    case Record::kEdge:
      return truth.add_edge(pc(words[1]), pc(words[2]), count(words[3]));
    case Record::kCycles:
      return truth.add_cycles(pc(words[1]), count(words[2]));
    case Record::kStall:
      return parse_stall(words, truth);
    case Record::kVisible:
      return truth.add_visible(pc(words[1]), count(words[2]));
    case Record::kPcEvent:
      if (!is_event_name(words[2]))
        throw LineError("bad event name '" + std::string(words[2].substr(0, 40)) + "'");
      return truth.add_pc_event(std::string(words[2]), pc(words[1]), count(words[3]));
    default:
      return;
  }
}

bool is_pc_record(truth_format::Record record) {
  using truth_format::Record;
  return record == Record::kInsn || record == Record::kEdge || record == Record::kCycles ||
         record == Record::kStall || record == Record::kVisible || record == Record::kPcEvent;
}

// `section`: the space whose lines these are (nullptr before the first).
void parse_line(const std::vector<std::string_view>& words, GroundTruth& truth,
                GroundTruth*& section) {
  using truth_format::Record;
  const Record record = record_of(words[0], truth.version).record;
  expect_fields(words, record);
  if (is_pc_record(record)) {
    parse_pc_line(record, words, truth);
    if (section) parse_pc_line(record, words, *section);
    return;
  }
  switch (record) {
    case Record::kImage:
      truth.images.push_back({std::string(words[1]), std::string(words[2])});
      return;
    case Record::kMachine:
      return parse_machine(words[1], truth);
    case Record::kVcpus:
      truth.vcpus = count(words[1]);
      return;
    case Record::kEvent:
      if (section) throw LineError("an event line inside a space's lines");
      return parse_event(words, truth);
    case Record::kSpace:
      section = parse_space(words, truth);
      return;
    case Record::kMap:
      return parse_map(words, truth);
    default:
      return;
  }
}

// "expected 'dcpi-exec-counts 1' or 'dcpi-exec-counts 2'": every version it reads.
std::string expected_header() {
  std::string text = "expected ";
  for (int v = 1; v <= DCPI_TRUTH_VERSION_NEWEST; ++v)
    text += (v > 1 ? " or '" : "'") + std::string(DCPI_TRUTH_MAGIC) + " " + std::to_string(v) + "'";
  return text;
}

void parse_header(const std::vector<std::string_view>& words, GroundTruth& truth) {
  if (words.size() != 2 || words[0] != DCPI_TRUTH_MAGIC) throw LineError(expected_header());
  uint64_t version = 0;
  try {
    version = count(words[1]);
  } catch (const LineError&) {
    throw LineError(expected_header());
  }
  if (version < 1 || words[1] != std::to_string(version)) throw LineError(expected_header());
  if (version > DCPI_TRUTH_VERSION_NEWEST)
    throw LineError("version " + std::to_string(version) +
                    " is newer than this reader knows (1 to " +
                    std::to_string(DCPI_TRUTH_VERSION_NEWEST) + "): a newer dcpi wrote it");
  truth.version = static_cast<int>(version);
}

}  // namespace

bool read_ground_truth(std::istream& in, GroundTruth& truth, std::string& error) {
  std::string line;
  size_t line_number = 0;
  bool header = false;
  GroundTruth* section = nullptr;
  try {
    while (std::getline(in, line)) {
      ++line_number;
      const std::vector<std::string_view> words = split_words(line);
      if (words.empty()) continue;
      if (!header) {
        parse_header(words, truth);
        header = true;
      } else {
        parse_line(words, truth, section);
      }
    }
  } catch (const LineError& problem) {
    error = "line " + std::to_string(line_number) + ": " + problem.what();
    return false;
  }
  if (!header) {
    error = "empty file: " + expected_header();
    return false;
  }
  // Σ stalls at a PC is normally at most its cycles, but not required: the
  // model may refund cycles at a block's head (an instruction that issued
  // with its predecessor) that it charged to a stall elsewhere.
  return true;
}

bool read_ground_truth_file(const std::string& path, GroundTruth& truth, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = "cannot open " + path;
    return false;
  }
  if (read_ground_truth(in, truth, error)) return true;
  error = path + ": " + error;
  return false;
}

}  // namespace dcpi::calc
