// Inputs shared by `dcpi calc` and `dcpi score`: the image's ELF, its CYCLES
// samples from the profile database (DCPI §4.3.3), the processor model and
// the mean sampling period.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/calc/estimate/culprits.h"
#include "analysis/calc/estimate/procedure_analysis.h"
#include "analysis/calc/frontend/code_image.h"
#include "analysis/calc/frontend/event_evidence.h"
#include "analysis/calc/model/processor_model.h"
#include "analysis/calc/truth/ground_truth.h"
#include "profiledb/own_cycles.h"
#include "profiledb/profile_db.h"
#include "symbols/image_resolver.h"

namespace dcpi {

// firmware/control_block.h (the driver's default): periods uniform in [base, base + range), mean
// base + (range − 1)/2.
double default_mean_period();

// The mean sampling period F × period uses (docs/calc.md): --period if given,
// else what the database recorded for the analysed epochs.
struct EpochPeriod {
  uint64_t epoch = 0;
  SamplingPeriod period;  // from epoch.meta; unknown in databases from before it was recorded
  double samples = 0;     // the image's CYCLES samples in this epoch
  // The share of a period that a thread's sample stood for of its CPU's own
  // cycles (several CPUs under -icount's one clock; profiledb/own_cycles.h);
  // nullopt when the epoch does not record it.
  std::optional<OwnCycleShare> own;
  double lateness = 0;  // its late samples' toll (profiledb/own_cycles.h EpochOwnShares)
};
struct PeriodChoice {
  // The cycles F × period uses: the mean sampling period times the own
  // share of the CPUs' cycles when the epochs record it.
  double mean = 0;
  double sampling_mean = 0;  // the mean sampling period itself
  // Sample-weighted own share of the epochs (1 on one CPU); nullopt when
  // none records it.
  std::optional<double> own_share;
  // "option" (--period), "recorded" (one period in every epoch with samples),
  // "mixed" (several periods, a period change within an epoch, or epochs that
  // do not record theirs: the epochs' means weighted by the image's samples in
  // each), "default" (nothing recorded: the driver's default).
  std::string source;
  std::string description;         // for the header: "recorded [8192, 9216)", ...
  std::vector<std::string> notes;  // what the user should know (changed, unknown, mixed)
};
PeriodChoice choose_mean_period(const std::vector<EpochPeriod>& epochs,
                                std::optional<double> option);

struct ImageSamples {
  ImageIdentity identity;        // the image in the database
  std::vector<uint64_t> epochs;  // epochs read
  // CYCLES samples per ELF address, all PIDs and CPUs; on several CPUs each
  // thread's weighed by its own share (own_weighed_samples.h), their total
  // unchanged.
  calc::SamplesByAddress cycles;
  // The same as counted, unweighed: where the samples landed (the placement
  // oracle compares them with where the truth says they can land).
  calc::SamplesByAddress landed;
  // The other events' samples (imiss, dmiss, ...; the ev5 machine), the same way.
  std::map<std::string, calc::SamplesByAddress> events;
  // Every event but cycles with samples in the epochs read, in any image:
  // the events that shared counter 2 (time multiplexing).
  std::set<std::string> sampled_events;
  // Per event of `events`: the events one of its samples stood for in the
  // image (mean period ÷ recorded share of time, averaged over the epochs
  // by samples; profiledb/event_scale.h). Absent when an epoch
  // time-shared counter 2 without recording the shares (older databases).
  std::map<std::string, double> events_per_sample;
  uint32_t profileme_pair_window = 0;  // W of paired ProfileMe records (issue 27), 0: none
  double total = 0;                    // in the image
  size_t cpus = 0;                     // CPUs with driver statistics in those epochs
  std::vector<EpochPeriod> periods;   // per epoch read: its recorded period and the image's samples
  std::string machine{kMachineQemu};  // of the epochs with samples (one machine, or an error)
};

struct CalcInputs {
  CodeImage code;
  ImageSamples samples;
  std::unique_ptr<calc::ProcessorModel> model;
  bool qemu_model = true;
  calc::FrequencyEstimator estimator = calc::kDefaultEstimator;
  double period = 0;
  PeriodChoice period_choice;
  std::string epochs_text;
  // DCPI §6.3: the event samples the culprit phase weighs (none without
  // events, or with --no-events), and what they are for the header.
  calc::CulpritOptions culprits;
  EventEvidenceSummary events;
};

// What both commands were asked for (parsed by analysis/cli/report_options.h).
struct CalcRequest {
  std::string db;     // --db
  std::string image;  // --image: an ELF file, or an image's name in the db; empty:
                      // the one image of the database with `procedure` (as list finds it)
  std::optional<std::string> procedure;  // --procedure, to find the image by
  ImageSources images;  // where a named image's ELF is: --images, the catalog, the cache
  std::optional<isa::DecodeMode> mode;  // --mode; default: decode_mode_for_image
  // --model qemu|ev5; default: the profile's machine's (ev5 profiles get the
  // 21164 model, qemu ones QEMU's 1-IPC model).
  std::optional<std::string> model;
  std::optional<uint64_t> epoch;  // --epoch; default: every epoch
  std::optional<double> period;   // --period; default: what the database recorded
  calc::FrequencyEstimator estimator = calc::kDefaultEstimator;  // --estimate
  bool use_events = true;  // --no-events: culprits from the CYCLES samples alone
};
CalcInputs load_calc_inputs(const CalcRequest& request);
// The guest paths of the images with cycles samples in the request's epochs
// (dcpi score without --image scores each).
std::vector<std::string> sampled_image_paths(const CalcRequest& request);

// Where the numbers came from, for the header.
struct CalcContext {
  std::string image;                // the ELF file analysed
  std::string db_image;             // the image's path in the profile database
  std::string epochs;               // "all (1, 2)" or "3"
  double period = 0;                // the cycles F x period uses (PeriodChoice::mean)
  double sampling_period = 0;       // the mean sampling period itself
  std::optional<double> own_share;  // PeriodChoice::own_share
  double lateness = 0;             // the epochs' late samples' toll, weighed by the image's samples
  std::string period_description;  // where it came from ("recorded [8192, 9216)", ...)
  std::string period_source;       // PeriodChoice::source (inputs.h)
  std::vector<std::string> period_notes;  // printed as note: lines
  size_t cpus = 0;                        // CPUs that reported driver statistics; 0 if unknown
  bool qemu_model = true;
  // The machine the profile was taken on (epoch.meta `machine`, issue 14):
  // "qemu" (1 instruction per cycle) or "ev5" (QEMU on the 21164 model's time).
  std::string machine = "qemu";
  // The EV5 model on a profile from the qemu machine (1 instruction per
  // cycle, no stalls): its stalls are what a 21164 would have shown, not
  // what the machine did.
  bool hypothetical_stalls = false;
  std::string estimator = "dcpi";  // --estimate: dcpi or flow
  EventEvidenceSummary events;     // the event samples beside cycles (issue 26)
};

// The report header both commands print.
CalcContext calc_context(const CalcInputs& inputs);

// The truth file of `dcpi score --truth` and `dcpi calc --truth` (versions
// 1 to 3, analysis/calc/truth/ground_truth.h); throws std::runtime_error
// "PATH: line N: problem".
calc::GroundTruth load_ground_truth(const std::string& path);
// The same for the image of `inputs` (issue 30): throws std::runtime_error
// when the truth (version 3) names the run's images and this is none of
// them (another program's truth), or when the image is a shared library,
// which the truth's guest addresses cannot hold.
calc::GroundTruth load_ground_truth(const std::string& path, const CalcInputs& inputs);
// The same from a truth already loaded from `path` (one load for every image).
calc::GroundTruth truth_for_image(const calc::GroundTruth& truth, const std::string& path,
                                  const CalcInputs& inputs);

// "qemu" or "ev5"; nullptr for any other name.
std::unique_ptr<calc::ProcessorModel> make_model(const std::string& name);

}  // namespace dcpi

namespace dcpi {

struct AnalyzedProcedure {
  ProcedureCode code;
  calc::ProcedureAnalysis analysis;
};

// DCPI §6.1 for one procedure: decode, CFG, classes, estimates, propagation.
AnalyzedProcedure analyze_code(const CodeImage& image, const ProcedureRange& procedure,
                               const calc::ProcessorModel& model,
                               const calc::SamplesByAddress& samples,
                               calc::FrequencyEstimator estimator = calc::kDefaultEstimator);

// The samples that fall inside [start, end).
double samples_in(const calc::SamplesByAddress& samples, uint64_t start, uint64_t end);

}  // namespace dcpi
