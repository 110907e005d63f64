// The dcpi subcommands. Each takes the arguments after its name, writes its
// report to stdout, throws UsageError for a bad command line and any other
// exception for a failure; dcpi_main turns those into one line on stderr.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace dcpi {

struct Command {
  std::string_view name;
  std::string_view summary;
  std::string_view usage;
  int (*run)(const std::vector<std::string>& arguments);
};

int run_ingest_command(const std::vector<std::string>& arguments);
int run_run_command(const std::vector<std::string>& arguments);
extern const std::string_view kRunUsage;
int run_stat_command(const std::vector<std::string>& arguments);
extern const std::string_view kStatUsage;
extern const std::string_view kIngestUsage;
int run_db_command(const std::vector<std::string>& arguments);
extern const std::string_view kDbUsage;
int run_bench_db_command(const std::vector<std::string>& arguments);
extern const std::string_view kBenchDbUsage;
int run_calc_command(const std::vector<std::string>& arguments);
extern const std::string_view kCalcUsage;
int run_score_command(const std::vector<std::string>& arguments);
extern const std::string_view kScoreUsage;
int run_bench_calc_command(const std::vector<std::string>& arguments);
extern const std::string_view kBenchCalcUsage;

// Reports over the profile database (DCPI §3; docs/reports.md).
int run_prof_command(const std::vector<std::string>& arguments);
extern const std::string_view kProfUsage;
int run_profileme_command(const std::vector<std::string>& arguments);
extern const std::string_view kProfileMeUsage;
int run_list_command(const std::vector<std::string>& arguments);
extern const std::string_view kListUsage;
int run_stats_command(const std::vector<std::string>& arguments);
extern const std::string_view kStatsUsage;
int run_diff_command(const std::vector<std::string>& arguments);
extern const std::string_view kDiffUsage;
int run_values_command(const std::vector<std::string>& arguments);
extern const std::string_view kValuesUsage;
int run_export_command(const std::vector<std::string>& arguments);
extern const std::string_view kExportUsage;
int run_tree_command(const std::vector<std::string>& arguments);
extern const std::string_view kTreeUsage;
int run_paths_command(const std::vector<std::string>& arguments);
extern const std::string_view kPathsUsage;
int run_procs_command(const std::vector<std::string>& arguments);
extern const std::string_view kProcsUsage;
int run_report_command(const std::vector<std::string>& arguments);
extern const std::string_view kReportUsage;

}  // namespace dcpi
