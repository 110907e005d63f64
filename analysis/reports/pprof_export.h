// Export of database samples for other tools: the pprof profile format
// (gzipped perftools.profiles.Profile, analysis/reports/proto/profile.proto) and a
// flat JSON list. Every stored row becomes one pprof sample of type
// "samples"/"count" (the period, when known, converts to cycles) labelled
// with its pid, tid, cpu, image and program (string labels: pprof drops numeric
// labels of value 0) and its epoch; locations carry the image's mapping, the
// procedure and, with DWARF, the source line. Nothing is invented: the
// period is written only when every exported epoch recorded the same one
// (pprof has one per profile; the database records one per epoch, which may
// differ or change), and no time (the database records none; DESIGN §3: on
// QEMU a cycle is an instruction).
#pragma once
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/samples/sample_set.h"
#include "symbols/image_resolver.h"

namespace dcpi {

// Serialized (not yet gzipped) perftools.profiles.Profile.
std::string build_pprof(const SampleSet& samples, ImageResolver& resolver,
                        std::vector<std::string>& warnings);

// Writes `bytes` gzip-compressed (zlib); throws std::runtime_error naming the file.
void write_gzip_file(const std::filesystem::path& file, const std::string& bytes);
std::string read_gzip_file(const std::filesystem::path& file);

void write_samples_json(const SampleSet& samples, ImageResolver& resolver, std::ostream& out);

}  // namespace dcpi
