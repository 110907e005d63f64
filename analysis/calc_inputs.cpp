#include "analysis/calc_inputs.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "analysis/calc/ev5_model.h"
#include "analysis/calc/qemu_icount_model.h"
#include "driver/sampler.h"

namespace dcpi {

namespace fs = std::filesystem;

double default_mean_period() {
  return driver::kDefaultPeriodBase + (driver::kDefaultPeriodRange - 1) / 2.0;
}

std::unique_ptr<calc::ProcessorModel> make_model(const std::string& name) {
  if (name == "qemu") return std::make_unique<calc::QemuIcountModel>();
  if (name == "ev5") return std::make_unique<calc::Ev5Model>();
  throw UsageError("--model must be qemu or ev5, not '" + name + "'");
}

namespace {

std::string basename(const std::string& path) { return fs::path(path).filename().string(); }

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(separator, start), text.size());
    if (end > start) parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// Which database image an ELF file is: same build-id, or (for images without
// one) the same file name.
bool same_image(const ImageIdentity& identity, const CodeImage& elf) {
  if (!identity.build_id.empty() && elf.build_id()) return identity.build_id == *elf.build_id();
  return basename(identity.path) == basename(elf.path());
}

bool names_image(const ImageIdentity& identity, const std::string& name) {
  return identity.path == name || basename(identity.path) == name;
}

// The host ELF of a database image named on the command line: looked up by
// file name in the --images directories, checked by build-id.
std::string find_elf(const ImageIdentity& identity, const std::string& directories) {
  for (const std::string& directory : split(directories, ':')) {
    for (const std::string& name : {basename(identity.path), basename(identity.path) + ".elf"}) {
      const fs::path candidate = fs::path(directory) / name;
      if (fs::is_regular_file(candidate)) return candidate.string();
    }
  }
  throw std::runtime_error("no ELF file for " + identity.path +
                           ": give its path as --image or its directory with --images DIR[:DIR]");
}

}  // namespace

CalcContext calc_context(const CalcInputs& inputs) {
  return CalcContext{.image = inputs.code.path(),
                     .db_image = inputs.samples.identity.path,
                     .epochs = inputs.epochs_text,
                     .period = inputs.period,
                     .cpus = inputs.samples.cpus,
                     .qemu_model = inputs.qemu_model};
}

CalcInputs load_calc_inputs(const ParsedOptions& options) {
  const ProfileDatabase db = ProfileDatabase::open(options.required("db"));
  const std::string image = options.required("image");
  std::optional<isa::DecodeMode> mode;
  if (const auto m = options.value("mode")) {
    if (*m == "pal")
      mode = isa::DecodeMode::kPalcode;
    else if (*m == "user")
      mode = isa::DecodeMode::kUser;
    else
      throw UsageError("--mode must be pal or user, not '" + *m + "'");
  }

  std::vector<uint64_t> epochs = db.epochs();
  if (const auto e = options.value("epoch")) {
    const uint64_t wanted = std::stoull(*e);
    if (std::find(epochs.begin(), epochs.end(), wanted) == epochs.end())
      throw std::runtime_error("the database has no epoch " + *e);
    epochs = {wanted};
  }
  if (epochs.empty()) throw std::runtime_error("the database has no epochs");

  std::optional<CodeImage> code;
  if (fs::is_regular_file(image)) code = CodeImage::open(image, mode);
  ImageSamples samples;
  std::set<uint32_t> cpus;
  bool found = false;
  for (uint64_t epoch : epochs) {
    for (const auto& [cpu, stats] : db.epoch_metadata(epoch).cpu_stats) cpus.insert(cpu);
    for (const ProfileInfo& info : db.profiles(epoch)) {
      if (info.image.unknown || info.event_name != "cycles") continue;
      const bool match = code ? same_image(info.image, *code) : names_image(info.image, image);
      if (!match) continue;
      if (found && info.image != samples.identity)
        throw std::runtime_error("'" + image + "' matches two images in the database: " +
                                 samples.identity.path + " and " + info.image.path);
      found = true;
      samples.identity = info.image;
      for (const ProfileRow& row : db.read_profile(info).rows) {
        samples.cycles[row.address] += static_cast<double>(row.count);
        samples.total += static_cast<double>(row.count);
      }
    }
  }
  if (!found)
    throw std::runtime_error("no cycles samples for image '" + image + "' in " +
                             db.directory().string() + " (see 'dcpi db show')");
  if (!code) {
    code = CodeImage::open(find_elf(samples.identity, options.value("images").value_or(".")), mode);
    if (!same_image(samples.identity, *code))
      throw std::runtime_error(code->path() + " is not the image profiled as " +
                               samples.identity.path + " (build-id " + samples.identity.build_id +
                               " expected)");
  }
  samples.epochs = epochs;
  samples.cpus = cpus.size();

  const std::string model_name = options.value("model").value_or("qemu");
  CalcInputs inputs{.code = std::move(*code),
                    .samples = std::move(samples),
                    .model = make_model(model_name),
                    .qemu_model = model_name == "qemu",
                    .period = default_mean_period()};
  if (const auto p = options.value("period")) {
    inputs.period = std::stod(*p);
    if (!(inputs.period > 0)) throw UsageError("--period must be a positive number of cycles");
  }
  std::string list;
  for (uint64_t e : epochs) list += (list.empty() ? "" : ", ") + std::to_string(e);
  inputs.epochs_text = options.value("epoch") ? list : "all (" + list + ")";
  return inputs;
}

}  // namespace dcpi

namespace dcpi {

AnalyzedProcedure analyze_code(const CodeImage& image, const ProcedureRange& procedure,
                               const calc::ProcessorModel& model,
                               const calc::SamplesByAddress& samples) {
  ProcedureCode code = image.code(procedure);
  calc::ControlFlowGraph cfg = calc::build_cfg(code.records, code.extra_entries);
  calc::ProcedureAnalysis analysis = calc::analyze_procedure(std::move(cfg), model, samples);
  return {std::move(code), std::move(analysis)};
}

double samples_in(const calc::SamplesByAddress& samples, uint64_t start, uint64_t end) {
  double total = 0;
  for (uint64_t address = start; address < end; address += 4)
    if (const auto found = samples.find(address); found != samples.end()) total += found->second;
  return total;
}

}  // namespace dcpi
