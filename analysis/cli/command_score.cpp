// `dcpi score`: DCPI §6.2's evaluation — estimated execution counts (F ×
// mean period) against the exact counts of QEMU's exec_counts plugin (our
// dcpix), as the error histograms of Figure 8 (instructions, weighted by
// CYCLES samples) and Figure 9 (edges, weighted by executions).
#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>

#include "analysis/calc/frontend/estimate_scores.h"
#include "analysis/calc/frontend/inputs.h"
#include "analysis/cli/commands.h"
#include "analysis/cli/report_options.h"
#include "analysis/reports/context_output.h"
#include "analysis/reports/image_scores_output.h"
#include "analysis/reports/score_output.h"
#include "analysis/samples/chain_score.h"

namespace dcpi {

const std::string_view kScoreUsage =
    "usage: dcpi score [--db DIR] --truth FILE [--image PATH_OR_NAME | --procedure NAME]\n"
    "                  [--culprits [--no-events]] [--model qemu|ev5] [--epoch N] [--period "
    "CYCLES]\n"
    "                  [--images DIR[:DIR]] [--mode user|pal] [--estimate flow|dcpi] [--json]\n"
    "       dcpi score --contexts [--db DIR] [--images DIR[:DIR]] [--epoch N[,N...]|all]\n"
    "                  [--depth N] [--json]\n"
    "\n"
    "--contexts scores the sampled call chains (dcpi run -g) against the exact calling\n"
    "context tree of the same run (dcpi run --contexts): the share of user-mode samples\n"
    "whose callers match an exact context to --depth frames (default 8; to the root\n"
    "when shallower), the share that could not be unwound (by image), and the overlap\n"
    "of the two splits of time among contexts. Kernel samples (leaf in the kernel or\n"
    "PALcode) are left out: the exact tree books kernel time to a [kernel] context.\n"
    "Scores dcpi calc's frequency estimates against exact counts (DCPI 6.2, Figures 8\n"
    "and 9). FILE is the truth a plugin wrote (dcpi run --truth; version 1 from the qemu\n"
    "machine, version 2 with cycles and stalls from ev5; docs/exec-counts-format.md);\n"
    "--counts FILE is the same. Its counts are per virtual PC, so processes sharing\n"
    "addresses are summed. FILE,FILE,... sums the truths of several runs whose samples\n"
    "were stored in one epoch (dcpi run --seed N --epoch E, a seed per run): a profile\n"
    "accumulated over runs, as DCPI 6.2 ran each program three times.\n"
    "--culprits also scores dcpicalc's stall cycles and culprit lists (DCPI 6.3) against\n"
    "an ev5 truth: per cause, the share of true stall cycles whose cause was listed\n"
    "(recall) and the share of listed culprits that were real (precision). With event\n"
    "samples (dcpi run --events on ev5) calc weighs them (DCPI 6.3) and the score shows\n"
    "the culprits with and without them, and what they ruled out; --no-events scores\n"
    "without them only.\n"
    "Without --image and --procedure every image with samples is scored, one line each\n"
    "(the placement oracle's ratio, Figure 8 for both estimators, with --culprits recall\n"
    "and precision) and all of them pooled by samples; images whose ELF is not found\n"
    "(give --images) or that the truth cannot hold are listed as not scored.\n"
    "With --procedure and no --image, the image is the one that has the procedure.\n"
    "Without --procedure every procedure of the image with samples is scored, with a\n"
    "table per procedure (samples, share within 5/10/15 %, missing edges flagged).\n"
    "Both estimators are scored (dcpi and flow, see dcpi calc --estimate); the\n"
    "histograms show --estimate's (default flow). Edges an unresolved jump took\n"
    "(missing from the CFG) are scored as not estimated. Other options as for dcpi calc.\n";

namespace {

int score_sampled_chains(const std::vector<std::string>& arguments) {
  const ParsedOptions options(arguments,
                              {{"db", "images", "epoch", "depth"}, {"contexts", "json"}});
  ContextTreeRequest request;
  request.epochs = parse_epoch_option(options);
  ImageResolver resolver = image_resolver(options, {options.database()});
  const ContextTree exact = load_context_tree(options.database(), request, resolver);
  const ContextTree sampled = load_chain_tree(options.database(), request, resolver);
  const auto depth = static_cast<uint32_t>(options.number("depth", 8, 1, 128));
  const ChainScore score = score_chains(exact, sampled, depth);
  if (options.flag("json"))
    print_chain_score_json(std::cout, score, exact.machine);
  else
    print_chain_score(std::cout, score, exact.machine);
  return 0;
}

// One image of `dcpi score` without --image: its row, and its Figure 8
// items added to the pooled histograms.
ImageScoreRow score_one_image(const CalcRequest& request, const calc::GroundTruth& truth,
                              bool culprits, ImageScores& scores) {
  ImageScoreRow row{.image = request.image};
  try {
    const CalcInputs inputs = load_calc_inputs(request);
    row.samples = inputs.samples.total;
    ScoreRun run{.truth_path = scores.truth_path,
                 .truth = truth_for_image(truth, scores.truth_path, inputs)};
    if (culprits && run.truth.timed()) run.culprits.emplace();
    score_estimates(inputs, std::nullopt, run);
    row.placement = run.placement;
    for (const auto& [estimator, items] : run.all) {
      calc::ErrorHistogram& mine =
          estimator == calc::FrequencyEstimator::kFlow ? row.flow : row.dcpi;
      calc::ErrorHistogram& pooled =
          estimator == calc::FrequencyEstimator::kFlow ? scores.pooled_flow : scores.pooled_dcpi;
      for (const calc::ScoredCount& item : items.instructions) {
        mine.add(item);
        pooled.add(item);
      }
    }
    if (run.culprits) {
      row.culprits = run.culprits->overall();
      if (!scores.pooled_culprits) scores.pooled_culprits.emplace();
      scores.pooled_culprits->add(*row.culprits);
    }
  } catch (const std::exception& error) {  // one image's problem is that image's line
    row.not_scored = error.what();
  }
  return row;
}

int score_every_image(const ParsedOptions& options, const std::string& truth_path) {
  CalcRequest request = parse_calc_request(options, false);
  ImageScores scores{.truth_path = truth_path};
  const calc::GroundTruth truth = load_ground_truth(truth_path);
  scores.machine = truth.machine;
  for (const std::string& image : sampled_image_paths(request)) {
    request.image = image;
    scores.rows.push_back(score_one_image(request, truth, options.flag("culprits"), scores));
  }
  std::stable_sort(
      scores.rows.begin(), scores.rows.end(),
      [](const ImageScoreRow& a, const ImageScoreRow& b) { return a.samples > b.samples; });
  if (options.flag("json"))
    print_image_scores_json(scores, std::cout);
  else
    print_image_scores_text(scores, std::cout);
  return 0;
}

}  // namespace

int run_score_command(const std::vector<std::string>& arguments) {
  if (std::find(arguments.begin(), arguments.end(), "--contexts") != arguments.end())
    return score_sampled_chains(arguments);
  OptionSpec spec{.flags = {"json", "culprits", "no-events"}};
  for (const std::string& name : kCalcValueOptions) spec.with_value.insert(name);
  for (const char* name : {"procedure", "counts", "truth"}) spec.with_value.insert(name);
  const ParsedOptions options(arguments, spec);
  const std::optional<std::string> truth_option = options.value("truth");
  if (truth_option.has_value() == options.value("counts").has_value())
    throw UsageError("give the truth file once, as --truth FILE (or --counts FILE)");
  const std::string truth_path = truth_option ? *truth_option : *options.value("counts");
  if (!options.value("image") && !options.value("procedure"))
    return score_every_image(options, truth_path);
  ScoreRun run{.truth_path = truth_path};
  const CalcInputs inputs = load_calc_inputs(parse_calc_request(options));
  run.truth = load_ground_truth(run.truth_path, inputs);
  if (inputs.samples.machine != run.truth.machine)
    std::cerr << "dcpi score: the profile comes from machine " << inputs.samples.machine << " but "
              << run.truth_path << " from machine " << run.truth.machine
              << ": they are not the same run\n";
  // On qemu's truth nothing stalls (1 instruction per cycle): nothing to score.
  run.culprits_wanted = options.flag("culprits");
  if (run.culprits_wanted && run.truth.timed()) run.culprits.emplace();
  if (run.culprits && !inputs.culprits.events.empty()) run.culprits_without_events.emplace();

  score_estimates(inputs, options.value("procedure"), run);
  const CalcContext context = calc_context(inputs);
  if (options.flag("json"))
    print_score_json(run, inputs, context, std::cout);
  else
    print_score_text(run, inputs, context, std::cout);
  return 0;
}

}  // namespace dcpi
