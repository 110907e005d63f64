#include "analysis/calc/frontend/inputs.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <utility>

#include "analysis/calc/frontend/own_weighed_samples.h"
#include "analysis/calc/model/ev5_model.h"
#include "analysis/calc/model/qemu_icount_model.h"
#include "firmware/control_block.h"
#include "profiledb/event_scale.h"
#include "profiledb/tab_text.h"
#include "symbols/procedure_match.h"

namespace dcpi {

namespace fs = std::filesystem;

double default_mean_period() { return mean_period(kDefaultPeriodBase, kDefaultPeriodRange); }

namespace {

// Only epochs where the image has samples weigh in (all of them if none has).
std::vector<EpochPeriod> epochs_weighing_in(const std::vector<EpochPeriod>& epochs) {
  std::vector<EpochPeriod> used;
  for (const EpochPeriod& e : epochs)
    if (e.samples > 0) used.push_back(e);
  return used.empty() ? epochs : used;
}

PeriodChoice choose_sampling_period(const std::vector<EpochPeriod>& epochs,
                                    std::optional<double> option) {
  if (option) return {.mean = *option, .source = "option", .description = "--period", .notes = {}};
  const SamplingPeriod fallback{kDefaultPeriodBase, kDefaultPeriodRange, false};
  const std::vector<EpochPeriod> used = epochs_weighing_in(epochs);

  std::string unknown, changed, periods;
  std::optional<SamplingPeriod> common;
  bool several = false;
  double weighted = 0, weight = 0;
  for (const EpochPeriod& e : used) {
    const std::string epoch = std::to_string(e.epoch);
    if (!e.period.known()) {
      unknown += (unknown.empty() ? "" : ", ") + epoch;
    } else {
      periods +=
          (periods.empty() ? "epoch " : "; epoch ") + epoch + " " + period_interval_text(e.period);
      if (e.period.changed)
        changed += (changed.empty() ? "" : ", ") + epoch + " (periods in " +
                   period_interval_text(e.period) + ")";
      if (common && *common != e.period) several = true;
      if (!common) common = e.period;
    }
    const double mean = e.period.known() ? e.period.mean() : fallback.mean();
    weighted += mean * std::max(e.samples, 0.0);
    weight += std::max(e.samples, 0.0);
  }
  PeriodChoice choice;
  const std::string default_text = period_interval_text(fallback);
  if (!common) {
    choice.mean = fallback.mean();
    choice.source = "default";
    choice.description = "driver default " + default_text + ", not recorded";
    choice.notes.push_back(
        "the database does not record the sampling period (written before it "
        "was); the driver's default " +
        default_text + " is assumed: give --period if the run used another");
    return choice;
  }
  if (unknown.empty() && !several && !common->changed) {
    choice.mean = common->mean();
    choice.source = "recorded";
    choice.description = "recorded " + period_interval_text(*common);
    return choice;
  }
  choice.mean = weight > 0 ? weighted / weight : common->mean();
  choice.source = "mixed";
  choice.description = several || !unknown.empty()
                           ? "epochs' periods weighted by the image's samples"
                           : "middle of " + period_interval_text(*common) + ": the period changed";
  if (several || !unknown.empty())
    choice.notes.push_back("the epochs were sampled with different periods (" + periods +
                           "): F x period uses their means weighted by the image's samples");
  if (!unknown.empty())
    choice.notes.push_back("epoch(s) " + unknown +
                           " do not record the period: the driver's default " + default_text +
                           " is assumed for them");
  if (!changed.empty())
    choice.notes.push_back("the period changed during epoch(s) " + changed +
                           ": the middle of that interval is only a guess; analyse one epoch "
                           "with one period or give --period");
  return choice;
}

// Several CPUs under -icount share one clock: a thread's sample stood for
// its CPU's share of the period (profiledb/own_cycles.h). The epochs'
// shares weighted by the image's samples in each.
void apply_own_cycles(const std::vector<EpochPeriod>& epochs, PeriodChoice& choice) {
  const std::vector<EpochPeriod> used = epochs_weighing_in(epochs);
  double weighted = 0, weight = 0;
  std::string missing;
  bool any = false;
  for (const EpochPeriod& e : used) {
    const double w = used.size() == 1 ? 1.0 : std::max(e.samples, 0.0);
    any = any || e.own.has_value();
    if (!e.own) missing += (missing.empty() ? "" : ", ") + std::to_string(e.epoch);
    weighted += (e.own ? e.own->share : 1.0) * w;
    weight += w;
  }
  if (!any || weight <= 0) return;
  choice.own_share = weighted / weight;
  choice.mean *= *choice.own_share;
  if (!missing.empty())
    choice.notes.push_back("epoch(s) " + missing +
                           " do not record the CPUs' own cycles (a guest from before them): "
                           "their samples count as whole periods");
}

}  // namespace

PeriodChoice choose_mean_period(const std::vector<EpochPeriod>& epochs,
                                std::optional<double> option) {
  PeriodChoice choice = choose_sampling_period(epochs, option);
  choice.sampling_mean = choice.mean;
  apply_own_cycles(epochs, choice);
  return choice;
}

namespace {

calc::GroundTruth read_one_truth(const std::string& path) {
  calc::GroundTruth truth;
  std::string error;
  if (!calc::read_ground_truth_file(path, truth, error)) throw std::runtime_error(error);
  return truth;
}

}  // namespace

calc::GroundTruth load_ground_truth(const std::string& paths) {
  std::error_code error;
  if (fs::exists(paths, error) || paths.find(',') == std::string::npos)
    return read_one_truth(paths);
  // FILE,FILE,...: the runs of a profile accumulated over several runs
  // (dcpi run --seed, one --epoch), their counts summed.
  calc::GroundTruth sum;
  bool first = true;
  for (const std::string_view file : split_fields(paths, ',')) {
    const std::string path(file);
    if (path.empty()) throw std::runtime_error("--truth " + paths + ": an empty file name");
    calc::GroundTruth one = read_one_truth(path);
    if (std::exchange(first, false)) {
      sum = std::move(one);
      continue;
    }
    try {
      sum.add(one);
    } catch (const std::invalid_argument& mismatch) {
      throw std::runtime_error(path + ": " + mismatch.what());
    }
  }
  return sum;
}

namespace {

std::string truth_images_text(const calc::GroundTruth& truth) {
  std::string text;
  for (const auto& image : truth.images)
    text += (text.empty() ? "" : ", ") + image.path + " (" + image.build_id + ")";
  return text;
}

// Version 3 on: the truth names the images its run booted.
void check_truth_covers(const std::string& path, const calc::GroundTruth& truth,
                        const ImageIdentity& image) {
  if (truth.images.empty()) return;  // versions 1 and 2 do not say
  for (const auto& covered : truth.images)
    if (image.build_id.empty() ? covered.path == image.path : covered.build_id == image.build_id)
      return;
  throw std::runtime_error(path + " is the truth of a run of " + truth_images_text(truth) +
                           ", not of " + image.path + " (" +
                           (image.build_id.empty() ? "no build-id" : image.build_id) +
                           "): another program's truth");
}

}  // namespace

calc::GroundTruth load_ground_truth(const std::string& path, const CalcInputs& inputs) {
  return truth_for_image(load_ground_truth(path), path, inputs);
}

calc::GroundTruth truth_for_image(const calc::GroundTruth& truth, const std::string& path,
                                  const CalcInputs& inputs) {
  const ImageIdentity& image = inputs.samples.identity;
  const std::string name = fs::path(image.path).filename().string();
  if (truth.has_spaces() && !truth.maps.empty()) {
    // Version 5: user code per address space, each space's images named by
    // the run that wrote the file (firmware/truth_format.h).
    check_truth_covers(path, truth, image);
    return truth.for_image(image.build_id, image.path);
  }
  if (truth.has_spaces())  // QEMU started by hand (--print-qemu-command), or a stopped run
    std::cerr << "dcpi: note: " << path
              << " names no images of its address spaces (only dcpi run adds them): its user "
                 "code is summed by address, as before version 5\n";
  // Every process maps a library at its own address, and the truth counts
  // guest virtual addresses: whatever it holds there is not this library.
  if (name.find(".so") != std::string::npos)
    throw std::runtime_error(path + " has no lines for " + image.path +
                             ": the truth counts guest virtual addresses, and a shared library is "
                             "mapped at a different address in each process (score a program's "
                             "own code, or the kernel)");
  check_truth_covers(path, truth, image);
  return truth;
}

std::unique_ptr<calc::ProcessorModel> make_model(const std::string& name) {
  if (name == "qemu") return std::make_unique<calc::QemuIcountModel>();
  if (name == "ev5") return std::make_unique<calc::Ev5Model>();
  return nullptr;
}

namespace {

std::string basename(const std::string& path) { return fs::path(path).filename().string(); }

// Which database image an ELF file is: same build-id, or (for images without
// one) the same file name.
bool same_image(const ImageIdentity& identity, const CodeImage& elf) {
  if (!identity.build_id.empty() && elf.build_id()) return identity.build_id == *elf.build_id();
  return basename(identity.path) == basename(elf.path());
}

bool names_image(const ImageIdentity& identity, const std::string& name) {
  return identity.path == name || basename(identity.path) == name;
}

// The host ELF of a database image named on the command line: found as the
// report commands find it (image_resolver.h), so calc takes the same --images.
std::string find_elf(const ImageIdentity& identity, const ImageSources& sources) {
  ImageResolver resolver = ImageResolver::from_sources(sources);
  const ResolvedImage& resolved = resolver.resolve(identity);
  if (resolved.elf) return resolved.elf->path();
  std::string reason = resolved.warning;  // "image P: why; showing addresses only"
  if (const size_t colon = reason.find(": "); colon != std::string::npos)
    reason = reason.substr(colon + 2);
  if (const size_t tail = reason.rfind("; showing"); tail != std::string::npos) reason.resize(tail);
  throw std::runtime_error("no ELF file for " + identity.path + " (" + reason +
                           "): give its path as --image or its directory with --images DIR[:DIR]");
}

double mean_lateness(const std::vector<EpochPeriod>& epochs) {
  double weighted = 0, samples = 0;
  for (const EpochPeriod& e : epochs) {
    weighted += e.lateness * e.samples;
    samples += e.samples;
  }
  return samples > 0 ? weighted / samples : 0;
}

}  // namespace

CalcContext calc_context(const CalcInputs& inputs) {
  return CalcContext{
      .image = inputs.code.path(),
      .db_image = inputs.samples.identity.path,
      .epochs = inputs.epochs_text,
      .period = inputs.period,
      .sampling_period = inputs.period_choice.sampling_mean,
      .own_share = inputs.period_choice.own_share,
      .lateness = mean_lateness(inputs.samples.periods),
      .period_description = inputs.period_choice.description,
      .period_source = inputs.period_choice.source,
      .period_notes = inputs.period_choice.notes,
      .cpus = inputs.samples.cpus,
      .qemu_model = inputs.qemu_model,
      .machine = inputs.samples.machine,
      // The 21164's stalls on samples of QEMU's 1-IPC machine.
      .hypothetical_stalls = !inputs.qemu_model && inputs.samples.machine == kMachineQemu,
      .estimator = std::string(to_string(inputs.estimator)),
      .events = inputs.events};
}

namespace {

// The epochs asked for, checked against the database.
std::vector<uint64_t> chosen_epochs(const ProfileDatabase& db, std::optional<uint64_t> wanted) {
  std::vector<uint64_t> epochs = db.epochs();
  if (wanted) {
    if (std::find(epochs.begin(), epochs.end(), *wanted) == epochs.end())
      throw std::runtime_error("the database has no epoch " + std::to_string(*wanted));
    epochs = {*wanted};
  }
  if (epochs.empty()) throw std::runtime_error("the database has no epochs");
  return epochs;
}

// The machine of the epochs in which the image has samples (issue 14): a
// cycle of one machine is not a cycle of the other, so they never mix.
std::string one_machine(const std::map<std::string, std::vector<uint64_t>>& machines,
                        const std::string& image) {
  if (machines.empty()) return std::string(kMachineQemu);
  if (machines.size() == 1) return machines.begin()->first;
  std::string list;
  for (const auto& [machine, epochs] : machines) {
    list += (list.empty() ? "" : "; ") + machine + " in epoch" + (epochs.size() > 1 ? "s " : " ");
    for (size_t i = 0; i < epochs.size(); ++i) list += (i ? ", " : "") + std::to_string(epochs[i]);
  }
  throw std::runtime_error("the samples of '" + image + "' come from different machines (" + list +
                           "): their cycles are not comparable; choose epochs of one machine "
                           "with --epoch");
}

// The images with cycles samples in `epochs`, by guest path.
std::map<std::string, ImageIdentity> sampled_images(const ProfileDatabase& db,
                                                    const std::vector<uint64_t>& epochs) {
  std::map<std::string, ImageIdentity> images;
  for (uint64_t epoch : epochs)
    for (const ProfileInfo& info : db.profiles(epoch))
      if (!info.image.unknown && info.event_name == "cycles")
        images.emplace(info.image.path, info.image);
  return images;
}

// --image names nothing with samples: say which images the database has, as
// the reports do (analysis/samples/sample_set.cpp).
std::string no_image_message(const ProfileDatabase& db, const std::vector<uint64_t>& epochs,
                             const std::string& image) {
  std::string list;
  for (const auto& [path, identity] : sampled_images(db, epochs))
    list += (list.empty() ? "" : ", ") + path;
  return "no cycles samples for image '" + image + "' in " + db.directory().string() +
         (list.empty() ? " (it has no cycles samples)" : "; it has " + list);
}

// The one image of the database whose ELF has `procedure` (list's rule:
// every image with samples is searched); throws naming the candidates when
// none or several have it.
std::string image_with_procedure(const ProfileDatabase& db, const std::vector<uint64_t>& epochs,
                                 const std::string& procedure, const ImageSources& sources) {
  ImageResolver resolver = ImageResolver::from_sources(sources);
  std::vector<std::string> found, every_symbol;
  std::string warning;
  size_t with_symbols = 0;
  for (const auto& [path, identity] : sampled_images(db, epochs)) {
    const ResolvedImage& resolved = resolver.resolve(identity);
    if (!resolved.elf) {
      if (warning.empty()) warning = resolved.warning;
      continue;
    }
    ++with_symbols;
    const std::vector<std::string> symbols = resolved.elf->procedure_symbols();
    every_symbol.insert(every_symbol.end(), symbols.begin(), symbols.end());
    if (find_procedure(*resolved.elf, procedure, path)) found.push_back(path);
  }
  if (found.size() == 1) return found.front();
  if (found.empty()) throw no_procedure_error(every_symbol, procedure, with_symbols, warning);
  std::string list;
  for (const std::string& path : found) list += (list.empty() ? "" : ", ") + path;
  throw std::runtime_error("'" + procedure + "' is in " + std::to_string(found.size()) +
                           " images (" + list + "): name one with --image");
}

// The image's CYCLES samples in `epochs`: the image is the one `code` is (by
// build-id), or, without an ELF yet, the one `image` names.
// The image's samples of every event but cycles (DCPI kept one profile per
// image and event, §4.3.3), for the per-event scores.
void read_event_samples(const ProfileDatabase& db, const std::vector<uint64_t>& epochs,
                        ImageSamples& samples) {
  std::map<std::string, double> counted, estimated;
  std::set<std::string> unscaled;
  for (uint64_t epoch : epochs) {
    const EpochMetadata metadata = db.epoch_metadata(epoch);
    const std::vector<ProfileInfo> profiles = db.profiles(epoch);
    std::set<uint16_t> counter2;  // events of this epoch on counter 2
    for (const ProfileInfo& info : profiles)
      if (info.event_name != "cycles" && !is_profileme_event(info.event))
        counter2.insert(info.event);
    for (const ProfileInfo& info : profiles) {
      if (info.event_name == "cycles") continue;
      samples.sampled_events.insert(info.event_name);
      if (info.image != samples.identity) continue;
      const EventScale scale = event_scale(metadata, info.event);
      if (scale.pair_window != 0) samples.profileme_pair_window = scale.pair_window;
      // Several events but no counted cycles: the shares were not recorded.
      if (counter2.count(info.event) && counter2.size() > 1 && !scale.shared)
        unscaled.insert(info.event_name);
      if (!scale.events_per_sample()) unscaled.insert(info.event_name);
      calc::SamplesByAddress& event = samples.events[info.event_name];
      for (const ProfileRow& row : db.read_profile(info).rows) {
        event[row.address] += static_cast<double>(row.count);
        counted[info.event_name] += static_cast<double>(row.count);
        estimated[info.event_name] +=
            static_cast<double>(row.count) * scale.events_per_sample().value_or(0.0);
      }
    }
  }
  for (const auto& [event, n] : counted)
    if (n > 0 && !unscaled.count(event)) samples.events_per_sample[event] = estimated[event] / n;
}

ImageSamples read_image_samples(const ProfileDatabase& db, const std::vector<uint64_t>& epochs,
                                const std::string& image, const std::optional<CodeImage>& code) {
  ImageSamples samples;
  std::set<uint32_t> cpus;
  std::map<std::string, std::vector<uint64_t>> machines;  // epochs with samples, per machine
  OwnWeighedSamples weighed;  // several CPUs: each thread's by its own share
  bool found = false;
  for (uint64_t epoch : epochs) {
    const EpochMetadata metadata = db.epoch_metadata(epoch);
    for (const auto& [cpu, stats] : metadata.cpu_stats) cpus.insert(cpu);
    EpochPeriod& period = samples.periods.emplace_back();
    period.epoch = epoch;
    period.period = metadata.period;
    const std::optional<ProcessTable> table = db.process_table(epoch);
    const EpochOwnShares epoch_shares = epoch_own_shares(db, epoch, metadata);
    period.lateness = epoch_shares.lateness;
    const ThreadOwnShares shares(epoch_shares, table ? &*table : nullptr);
    const double before = samples.total;
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
        const auto count = static_cast<double>(row.count);
        weighed.add(epoch, row.address, count, shares.of_thread(row.pid));
        samples.landed[row.address] += count;
        samples.total += count;
        period.samples += count;
      }
    }
    if (samples.total > before) machines[metadata.machine].push_back(epoch);
  }
  const auto own = weighed.add_to(samples.cycles);
  for (EpochPeriod& period : samples.periods)
    if (const auto it = own.find(period.epoch); it != own.end()) period.own = it->second;
  if (!found) throw std::runtime_error(no_image_message(db, epochs, image));
  read_event_samples(db, epochs, samples);
  samples.machine = one_machine(machines, image);
  samples.epochs = epochs;
  samples.cpus = cpus.size();
  return samples;
}

// --image as a host ELF when it is one and some sampled image has its
// build-id. A guest path that also exists on the host (the real mix's
// /bin/dash, /lib/ld-linux.so.2 on a Debian host) is another file there:
// then the argument names a database image, as a guest path does.
std::optional<CodeImage> host_image_of_samples(const ProfileDatabase& db,
                                               const std::vector<uint64_t>& epochs,
                                               const std::string& image,
                                               std::optional<isa::DecodeMode> mode) {
  if (!fs::is_regular_file(image)) return std::nullopt;
  std::optional<CodeImage> code;
  try {
    code = CodeImage::open(image, mode);
  } catch (const std::exception&) {
    bool named = false;  // not an ELF: a guest path, or the reader's own error
    for (const auto& [path, identity] : sampled_images(db, epochs))
      named = named || names_image(identity, image);
    if (named) return std::nullopt;
    throw;
  }
  for (const auto& [path, identity] : sampled_images(db, epochs))
    if (same_image(identity, *code)) return code;
  for (const auto& [path, identity] : sampled_images(db, epochs))
    if (names_image(identity, image)) return std::nullopt;
  return code;  // matches nothing: read_image_samples says which images there are
}

}  // namespace

std::vector<std::string> sampled_image_paths(const CalcRequest& request) {
  const ProfileDatabase db = ProfileDatabase::open(request.db);
  std::vector<std::string> paths;
  for (const auto& [path, identity] : sampled_images(db, chosen_epochs(db, request.epoch)))
    paths.push_back(path);
  return paths;
}

CalcInputs load_calc_inputs(const CalcRequest& request) {
  const ProfileDatabase db = ProfileDatabase::open(request.db);
  const std::vector<uint64_t> epochs = chosen_epochs(db, request.epoch);
  std::string image = request.image;
  if (image.empty()) {
    if (!request.procedure)
      throw std::invalid_argument("give --image (or a --procedure to find the image by)");
    image = image_with_procedure(db, epochs, *request.procedure, request.images);
  }
  std::optional<CodeImage> code = host_image_of_samples(db, epochs, image, request.mode);
  ImageSamples samples = read_image_samples(db, epochs, image, code);
  if (!code) {
    code = CodeImage::open(find_elf(samples.identity, request.images), request.mode);
    if (!same_image(samples.identity, *code))
      throw std::runtime_error(code->path() + " is not the image profiled as " +
                               samples.identity.path + " (build-id " + samples.identity.build_id +
                               " expected)");
  }
  // The profile's machine picks the model unless --model says otherwise.
  const std::string model = request.model.value_or(samples.machine);
  CalcInputs inputs{.code = std::move(*code),
                    .samples = std::move(samples),
                    .model = make_model(model),
                    .qemu_model = model == "qemu",
                    .estimator = request.estimator};
  if (!inputs.model) throw std::invalid_argument("unknown model '" + model + "'");
  inputs.period_choice = choose_mean_period(inputs.samples.periods, request.period);
  inputs.period = inputs.period_choice.mean;
  std::string list;
  for (uint64_t e : epochs) list += (list.empty() ? "" : ", ") + std::to_string(e);
  inputs.epochs_text = request.epoch ? list : "all (" + list + ")";
  inputs.culprits =
      culprit_options(inputs.samples, inputs.period, request.use_events, &inputs.events);
  inputs.code.describe_calls(inputs.culprits);
  return inputs;
}

}  // namespace dcpi

namespace dcpi {

AnalyzedProcedure analyze_code(const CodeImage& image, const ProcedureRange& procedure,
                               const calc::ProcessorModel& model,
                               const calc::SamplesByAddress& samples,
                               calc::FrequencyEstimator estimator) {
  ProcedureCode code = image.code(procedure);
  calc::ControlFlowGraph cfg = calc::build_cfg(code.records, code.extra_entries);
  calc::ProcedureAnalysis analysis =
      calc::analyze_procedure(std::move(cfg), model, samples, {}, estimator);
  return {std::move(code), std::move(analysis)};
}

double samples_in(const calc::SamplesByAddress& samples, uint64_t start, uint64_t end) {
  double total = 0;
  for (uint64_t address = start; address < end; address += 4)
    if (const auto found = samples.find(address); found != samples.end()) total += found->second;
  return total;
}

}  // namespace dcpi
