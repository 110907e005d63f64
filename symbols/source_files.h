// Source text for listings that interleave source lines (dcpi list, dcpi
// calc): each file read once, on first use.
#pragma once
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "symbols/elf_image.h"

namespace dcpi {

class SourceFiles {
 public:
  // The text of `line` in `file`, or empty if the file cannot be read.
  const std::string& line(const std::string& file, int line) {
    auto [entry, added] = files_.try_emplace(file);
    if (added) {
      std::ifstream in(file);
      for (std::string text; std::getline(in, text);) entry->second.push_back(text);
    }
    static const std::string kNone;
    const auto& lines = entry->second;
    return line >= 1 && static_cast<size_t>(line) <= lines.size() ? lines[line - 1] : kNone;
  }

  // "    file:line:  text" for an instruction whose source line differs from
  // the previous instruction's that had one; nullopt otherwise.
  std::optional<std::string> banner(const std::optional<SourceLocation>& at) {
    if (!at || (previous_ && previous_->file == at->file && previous_->line == at->line))
      return std::nullopt;
    previous_ = at;
    const std::string& text = line(at->file, at->line);
    return "    " + at->file + ":" + std::to_string(at->line) + (text.empty() ? "" : ":  ") + text;
  }

 private:
  std::map<std::string, std::vector<std::string>> files_;
  std::optional<SourceLocation> previous_;
};

}  // namespace dcpi
