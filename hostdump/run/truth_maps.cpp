#include "hostdump/run/truth_maps.h"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "firmware/truth_format.h"

namespace dcpi {

namespace {

int truth_version(std::istream& in) {
  std::string magic;
  int version = 0;
  in >> magic >> version;
  return magic == DCPI_TRUTH_MAGIC ? version : 0;
}

// One `map` line; a path with a blank cannot be written (the format's words
// have none) and is left out, as the image lines leave it.
bool write_map(std::ostream& out, const LoadMapModel::SpaceImage& space,
               const ImageIdentity& image) {
  if (image.path.find_first_of(" \t\r\n") != std::string::npos) return false;
  const char* map = truth_format::record_info(truth_format::Record::kMap).word;
  out << map << ' ' << space.pid << ' ' << space.generation << std::hex << ' ' << space.load_address
      << ' ' << space.size << ' ' << space.link_address << std::dec << ' '
      << (image.build_id.empty() ? DCPI_TRUTH_NO_BUILD_ID : image.build_id) << ' ' << image.path
      << '\n';
  return true;
}

}  // namespace

void add_truth_maps(const std::filesystem::path& truth, const LoadMapModel& load_map) {
  std::ifstream in(truth, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read the truth file " + truth.string());
  if (truth_version(in) < DCPI_TRUTH_VERSION_SPACES) return;
  in.seekg(0);
  const std::filesystem::path temporary = truth.string() + ".tmp";
  std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
  out << in.rdbuf();
  for (const LoadMapModel::SpaceImage& space : load_map.space_images())
    write_map(out, space, load_map.images()[space.image_id]);
  out.close();
  if (!out || in.bad())
    throw std::runtime_error("cannot write the address spaces into " + truth.string());
  std::filesystem::rename(temporary, truth);
}

}  // namespace dcpi
