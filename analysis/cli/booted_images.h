// The images `dcpi run` boots (DCPI §4.3.2: the daemon learns each image's
// identity from the loader; here the host knows the files before the guest
// runs): the PALcode, the kernel and every ELF program in the initrd. Each is
// recorded in the database's image catalog (hostdump/profiledb/image_catalog.h)
// with the host file that has its debug info, and copied into the build-id
// cache (analysis/symbols/build_id_cache.h), so reports name procedures with
// no --images, even after build/ is rebuilt or removed.
#pragma once
#include <string>
#include <vector>

#include "hostdump/profiledb/image_catalog.h"

namespace dcpi {

struct BootedImages {
  std::vector<RecordedImage> images;
  std::vector<std::string> warnings;  // what could not be read or cached (never fatal)
};

// `initrd` may be empty (no initrd). Guest paths are what the load map
// reports: "palcode.elf", "kernel.elf", "/bin/NAME" for initrd member bin/NAME.
BootedImages collect_booted_images(const std::string& palcode, const std::string& kernel,
                                   const std::string& initrd);

struct CpioMember {
  std::string name;  // as stored, e.g. "bin/copy"
  std::string data;
};
// The regular files of a newc ("070701") cpio archive; throws
// std::runtime_error on a malformed one.
std::vector<CpioMember> read_cpio_members(const std::string& archive);

}  // namespace dcpi
