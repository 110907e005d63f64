#include "qemu/machine/truth/truth_writer.h"

#include <algorithm>
#include <cinttypes>

#include "firmware/truth_format.h"

namespace dcpi::truth {

namespace {

const char* word(truth_format::Record record) { return truth_format::record_info(record).word; }

}  // namespace

using truth_format::Record;

TruthWriter::~TruthWriter() {
  if (out_) std::fclose(out_);  // never renamed: the run did not finish its file
}

bool TruthWriter::open(const std::string& path, int version, const std::string& images) {
  path_ = path;
  // No list (QEMU started from dcpi run --print-qemu-command, which writes
  // none): the file is as before, without image lines.
  FILE* list = images.empty() ? nullptr : std::fopen(images.c_str(), "r");
  if (list) version = std::max(version, DCPI_TRUTH_VERSION_IMAGES);
  out_ = std::fopen((path + ".tmp").c_str(), "w");
  if (out_) std::fprintf(out_, "%s %d\n", DCPI_TRUTH_MAGIC, version);
  // Two words a line, each without blanks: what the reader takes.
  char build_id[128], image[1024];
  while (out_ && list && std::fscanf(list, "%127s %1023s", build_id, image) == 2)
    std::fprintf(out_, "%s %s %s\n", word(Record::kImage), build_id, image);
  if (list) std::fclose(list);
  return out_ != nullptr;
}

bool TruthWriter::close() {
  FILE* out = out_;
  out_ = nullptr;
  if (!out || std::fclose(out) != 0) return false;
  return std::rename((path_ + ".tmp").c_str(), path_.c_str()) == 0;
}

void TruthWriter::comment(const char* text) { std::fprintf(out_, "%s\n", text); }

void TruthWriter::machine(const char* name) {
  std::fprintf(out_, "%s %s\n", word(Record::kMachine), name);
}

void TruthWriter::vcpus(size_t count) {
  std::fprintf(out_, "%s %zu\n", word(Record::kVcpus), count);
}

void TruthWriter::insn(uint64_t pc, uint64_t count) {
  std::fprintf(out_, "%s %" PRIx64 " %" PRIu64 "\n", word(Record::kInsn), pc, count);
}

void TruthWriter::edge(uint64_t from, uint64_t to, uint64_t count) {
  std::fprintf(out_, "%s %" PRIx64 " %" PRIx64 " %" PRIu64 "\n", word(Record::kEdge), from, to,
               count);
}

void TruthWriter::cycles(uint64_t pc, uint64_t cycles) {
  std::fprintf(out_, "%s %" PRIx64 " %" PRIu64 "\n", word(Record::kCycles), pc, cycles);
}

void TruthWriter::stall(uint64_t pc, isa::StallCause cause, uint64_t cycles,
                        std::optional<uint64_t> culprit) {
  std::fprintf(out_, "%s %" PRIx64 " %s %" PRIu64, word(Record::kStall), pc,
               isa::truth_name(isa::booked_as(cause)), cycles);
  if (culprit) std::fprintf(out_, " %" PRIx64, *culprit);
  std::fputc('\n', out_);
}

void TruthWriter::visible(uint64_t pc, uint64_t cycles) {
  std::fprintf(out_, "%s %" PRIx64 " %" PRIu64 "\n", word(Record::kVisible), pc, cycles);
}

void TruthWriter::pc_event(uint64_t pc, const char* name, uint64_t count) {
  std::fprintf(out_, "%s %" PRIx64 " %s %" PRIu64 "\n", word(Record::kPcEvent), pc, name, count);
}

void TruthWriter::space(uint32_t pid, uint32_t generation) {
  std::fprintf(out_, "%s %u %u\n", word(Record::kSpace), pid, generation);
}

void TruthWriter::event(const char* name, uint64_t count) {
  std::fprintf(out_, "%s %s %" PRIu64 "\n", word(Record::kEvent), name, count);
}

}  // namespace dcpi::truth
