#include "hostdump/run/guest_outputs.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace dcpi {
namespace {

// The decoded bytes of the file `guest`, if the messages carry it whole.
bool decode(const std::string& messages, const std::string& guest, std::string* bytes,
            std::string* why) {
  std::istringstream lines(messages);
  std::string line;
  bool inside = false;
  uint64_t size = 0;
  while (std::getline(lines, line)) {
    if (!inside) {
      if (line == "dcpi-output-missing " + guest) {
        *why = "the guest has no file " + guest;
        return false;
      }
      std::istringstream words(line);
      std::string tag, path;
      if (words >> tag >> size >> std::ws && tag == "dcpi-output-begin" &&
          std::getline(words, path) && path == guest) {
        inside = true;
        bytes->clear();
      }
      continue;
    }
    if (line == "dcpi-output-end") {
      if (bytes->size() == size) return true;
      *why = guest + " arrived cut short";
      return false;
    }
    const std::string prefix = "dcpi-output-data ";
    if (line.rfind(prefix, 0) != 0 || (line.size() - prefix.size()) % 2 != 0) break;
    for (size_t i = prefix.size(); i < line.size(); i += 2)
      bytes->push_back(static_cast<char>(std::stoi(line.substr(i, 2), nullptr, 16)));
  }
  *why = inside ? guest + " arrived cut short" : "the guest sent no " + guest;
  return false;
}

}  // namespace

GuestOutput parse_guest_output(const std::string& value) {
  const size_t colon = value.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == value.size())
    throw std::invalid_argument("--output " + value + ": expected GUEST:HOST");
  GuestOutput output{value.substr(0, colon), value.substr(colon + 1)};
  if (output.guest.find_first_of(", ") != std::string::npos)
    throw std::invalid_argument("--output " + value + ": the guest path has a ',' or a blank");
  return output;
}

bool write_guest_outputs(const std::string& host_messages, const std::vector<GuestOutput>& outputs,
                         std::ostream& report) {
  bool ok = true;
  for (const GuestOutput& output : outputs) {
    std::string bytes, why;
    if (!decode(host_messages, output.guest, &bytes, &why)) {
      report << "dcpi run: --output: " << why << '\n';
      ok = false;
      continue;
    }
    std::ofstream file(output.host, std::ios::binary);
    file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!file) {
      report << "dcpi run: --output: cannot write " << output.host << '\n';
      ok = false;
      continue;
    }
    report << "dcpi run: wrote " << output.host << " (" << bytes.size() << " bytes, the guest's "
           << output.guest << ")\n";
  }
  return ok;
}

}  // namespace dcpi
