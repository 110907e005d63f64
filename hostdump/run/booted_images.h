// The images `dcpi run` boots (DCPI §4.3.2: the daemon learns each image's
// identity from the loader; here the host knows the files before the guest
// runs): the PALcode, the kernel and every ELF program in the initrd. Each is
// recorded in the database's image catalog (profiledb/image_catalog.h)
// with the host file that has its debug info, and copied into the build-id
// cache (symbols/build_id_cache.h), so reports name procedures with
// no --images, even after build/ is rebuilt or removed.
#pragma once
#include <string>
#include <vector>

#include "profiledb/image_catalog.h"

namespace dcpi {

struct BootedImages {
  std::vector<RecordedImage> images;
  std::vector<std::string> warnings;  // what could not be read or cached (never fatal)
};

// `initrd` may be empty (no initrd). Guest paths are what the load map
// reports: "palcode.elf", "kernel.elf", "/bin/NAME" for initrd member bin/NAME.
// `known` (host file, guest path) pairs are recorded with those host files
// (dcpi run -- PROGRAM: the user's program and the sysroot's libraries);
// initrd members at the same guest paths are not looked at again.
BootedImages collect_booted_images(
    const std::string& palcode, const std::string& kernel, const std::string& initrd,
    const std::vector<std::pair<std::string, std::string>>& known = {});

}  // namespace dcpi
