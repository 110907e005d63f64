// `dcpi db`, rendered: the checker's report, a database's epochs and
// profiles (text or JSON, read from its headers as they print), and what a
// merge did (docs/profile-db.md).
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>

#include "profiledb/db_check.h"
#include "profiledb/db_merge.h"
#include "profiledb/profile_db.h"

namespace dcpi {

void print_check_report(const profiledb::CheckReport& report,
                        const std::filesystem::path& directory, std::ostream& out);
void print_database(const ProfileDatabase& db, std::ostream& out);
void print_database_json(const ProfileDatabase& db, const std::filesystem::path& directory,
                         std::ostream& out);
void print_merged_epoch(const MergedEpoch& epoch, std::ostream& out);
void print_merge_summary(const std::string& output, size_t epochs, uint64_t samples, size_t inputs,
                         std::ostream& out);

}  // namespace dcpi
