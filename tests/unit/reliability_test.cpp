// Issue 18, the reader and ingestion side: epochs beyond what a reader sees
// are refused at ingestion, database files of the wrong type or an impossible
// size fail at once with the file's name (never block, never read 8 GiB),
// load-map paths and sizes are checked before they name anything; epoch
// debris is never left by the writer, skipped by readers, removed by
// `dcpi db check --repair` (which, like check, looks for the writer first);
// ulimit -f is an error like a full disk.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "hostdump/load_map_model.h"
#include "hostdump/profile_builder.h"
#include "profiledb/container.h"
#include "profiledb/profile_db.h"
#include "profiledb/profile_db_writer.h"
#include "profiledb/profile_format.h"
#include "test_support.h"
#include "transfer_fixtures.h"

namespace dcpi {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

TransferRecord samples_record(uint64_t epoch) {
  const std::vector<SampleEntry> entries = {{0x1000, 3, 1, 0}};
  const std::vector<uint8_t> bytes =
      encode_record(RecordType::kSamples, 0, 1, epoch, testing::samples_payload(entries));
  StreamDecoder decoder;
  std::vector<TransferRecord> records = decoder.feed(bytes);
  EXPECT_EQ(records.size(), 1u);
  return records.at(0);
}

TEST(Ingestion, EpochsNoReaderSeesAreRejected) {
  TempDir dir;
  ProfileBuilder builder;
  builder.add_record(samples_record(UINT64_MAX));
  builder.add_record(samples_record(kMaxEpoch + 1));
  builder.add_record(samples_record(2));
  EXPECT_EQ(builder.totals().epoch_rejected, 2u);
  {
    ProfileDatabaseWriter writer(dir.file("db"));
    builder.flush(writer);
  }
  // The rejections are charged to the epoch current when they came (0:
  // before any record), like the decoder's counts.
  const ProfileDatabase db = ProfileDatabase::open(dir.file("db"));
  EXPECT_EQ(db.epochs(), (std::vector<uint64_t>{0, 2}));
  EXPECT_EQ(db.epoch_metadata(0).records_rejected, 2u);
  EXPECT_EQ(db.epoch_metadata(2).samples, 3u);

  ProfileBuilder shifted;  // a base that pushes a valid guest epoch past the limit
  shifted.set_epoch_base(kMaxEpoch);
  shifted.add_record(samples_record(1));
  EXPECT_EQ(shifted.totals().epoch_rejected, 1u);

  ProfileDatabaseWriter writer(dir.file("db"));
  EpochMetadata meta;
  meta.epoch = kMaxEpoch + 1;
  EXPECT_THROW(writer.merge_epoch_metadata(meta), ProfileDatabaseError);
}

TEST(Ingestion, LoadMapPathsAndSizesAreChecked) {
  LoadMapModel model;
  LoadMapRecord record{};
  record.kind = static_cast<uint32_t>(LoadKind::kExec);
  record.pid = 3;
  record.load_address = 0x10000;
  record.size = 0x1000;
  std::strcpy(record.path, "/bin/copy");
  EXPECT_TRUE(model.apply(record));
  LoadMapRecord empty = record;
  empty.path[0] = '\0';
  EXPECT_FALSE(model.apply(empty));
  LoadMapRecord control = record;
  std::strcpy(control.path, "/bin/a\nb");
  EXPECT_FALSE(model.apply(control));
  LoadMapRecord wraps = record;
  wraps.link_address = UINT64_MAX - 0x10;
  EXPECT_FALSE(model.apply(wraps));
}

// Runs `body` and fails if it takes more than a few seconds (a FIFO used to block).
template <typename Body>
void within_seconds(Body body) {
  const auto start = std::chrono::steady_clock::now();
  body();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(DatabaseFiles, WrongTypesFailAtOnceNamingTheFile) {
  TempDir dir;
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  within_seconds([&] {
    try {
      profiledb::read_file_bytes(fifo);
      ADD_FAILURE() << "a FIFO was read";
    } catch (const ProfileDatabaseError& error) {
      EXPECT_NE(std::string(error.what()).find(fifo + ": not a regular file (a FIFO)"),
                std::string::npos)
          << error.what();
    }
  });
  try {
    profiledb::read_file_bytes(dir.file(""));
    ADD_FAILURE() << "a directory was read";
  } catch (const ProfileDatabaseError& error) {
    EXPECT_NE(std::string(error.what()).find("a directory"), std::string::npos) << error.what();
  }
  // FORMAT as a FIFO: open refuses the database instead of blocking.
  fs::create_directory(dir.file("db"));
  ASSERT_EQ(::mkfifo(dir.file("db/FORMAT").c_str(), 0644), 0);
  within_seconds([&] {
    EXPECT_THROW(ProfileDatabase::open(dir.file("db")), ProfileDatabaseError);
    EXPECT_THROW(ProfileDatabaseWriter{dir.file("db")}, ProfileDatabaseError);
  });
}

TEST(DatabaseFiles, ImpossibleSizesFailWithoutReading) {
  TempDir dir;
  const std::string huge = dir.file("huge.prof");
  {
    const int fd = ::open(huge.c_str(), O_WRONLY | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, off_t{8} << 30), 0);  // 8 GiB, sparse
    ::close(fd);
  }
  within_seconds([&] {
    try {
      read_profile_file(huge);
      ADD_FAILURE() << "an 8 GiB profile was read";
    } catch (const ProfileDatabaseError& error) {
      EXPECT_NE(std::string(error.what()).find(huge), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("more than such a file may hold"),
                std::string::npos);
    }
  });
  EXPECT_NO_THROW(profiledb::read_file_bytes(huge, 64));  // a header is still readable
}

TEST(DatabaseFiles, CommandErrorsNameTheFile) {
  TempDir dir;
  fs::create_directory(dir.file("input"));
  const testing::CommandResult result =
      testing::run_dcpi({"ingest", "--db", dir.file("db"), "--from-file", dir.file("input")});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find(dir.file("input") + ": not a regular file (a directory)"),
            std::string::npos)
      << result.err;
  EXPECT_EQ(result.err.find("basic_filebuf"), std::string::npos) << result.err;
}

// A small database with one epoch holding one profile.
void make_database(const std::string& directory) {
  ProfileBuilder builder;
  builder.add_record(samples_record(1));
  ProfileDatabaseWriter writer(directory);
  builder.flush(writer);
}

std::vector<std::string> names_under(const fs::path& directory) {
  std::vector<std::string> names;
  for (const auto& entry : fs::recursive_directory_iterator(directory))
    names.push_back(entry.path().filename().string());
  return names;
}

TEST(EpochDebris, WriterNeverLeavesAnEpochWithoutMetadata) {
  TempDir dir;
  make_database(dir.file("db"));
  {
    ProfileDatabaseWriter full(dir.file("db"), WriterFaults{.fail_after_bytes = 0});
    ProfileBuilder builder;
    builder.add_record(samples_record(7));
    EXPECT_THROW(builder.flush(full), ProfileDatabaseError);
  }
  EXPECT_FALSE(fs::exists(dir.file("db/epoch-00000007")));
  const testing::CommandResult check = testing::run_dcpi({"db", "check", dir.file("db")});
  EXPECT_EQ(check.exit_code, 0) << check.out;
}

TEST(EpochDebris, ReadersSkipItCheckReportsItRepairRemovesIt) {
  TempDir dir;
  const std::string db = dir.file("db");
  make_database(db);
  fs::create_directory(db + "/epoch-00000002");  // killed before its first epoch.meta
  testing::write_file(db + "/epoch-00000001/.tmp-x.prof-99", {1, 2, 3});
  EXPECT_EQ(ProfileDatabase::open(db).epochs(), std::vector<uint64_t>{1});
  const testing::CommandResult prof = testing::run_dcpi({"db", "show", db});
  EXPECT_EQ(prof.exit_code, 0) << prof.err;
  const testing::CommandResult check = testing::run_dcpi({"db", "check", db});
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_NE(check.out.find("epoch-00000002: epoch directory without epoch.meta"), std::string::npos)
      << check.out;
  EXPECT_NE(check.out.find(".tmp-x.prof-99: leftover temporary file"), std::string::npos);
  const testing::CommandResult repair = testing::run_dcpi({"db", "check", "--repair", db});
  EXPECT_EQ(repair.exit_code, 0) << repair.out << repair.err;
  EXPECT_FALSE(fs::exists(db + "/epoch-00000002"));
  EXPECT_FALSE(fs::exists(db + "/epoch-00000001/.tmp-x.prof-99"));
}

TEST(EpochDebris, RepairRecomputesTotalsThatDisagree) {
  TempDir dir;
  const std::string db = dir.file("db");
  make_database(db);
  {
    ProfileDatabaseWriter writer(db);
    EpochMetadata meta = ProfileDatabase::open(db).epoch_metadata(1);
    meta.samples += 100;
    writer.replace_epoch_metadata(meta);
  }
  EXPECT_EQ(testing::run_dcpi({"db", "check", db}).exit_code, 1);
  const testing::CommandResult repair = testing::run_dcpi({"db", "check", "--repair", db});
  EXPECT_EQ(repair.exit_code, 0) << repair.out << repair.err;
  EXPECT_EQ(ProfileDatabase::open(db).epoch_metadata(1).samples, 3u);
}

TEST(EpochDebris, CheckLooksForTheWritersLockFirst) {
  TempDir dir;
  const std::string db = dir.file("db");
  make_database(db);
  ProfileDatabaseWriter live(db);                                  // an active run
  testing::write_file(db + "/epoch-00000001/.tmp-y.prof-1", {1});  // its file in flight
  const testing::CommandResult check = testing::run_dcpi({"db", "check", db});
  EXPECT_EQ(check.exit_code, 0) << check.out;
  EXPECT_EQ(check.out.find("safe to delete"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("holds the lock"), std::string::npos) << check.out;
  const testing::CommandResult repair = testing::run_dcpi({"db", "check", "--repair", db});
  EXPECT_EQ(repair.exit_code, 1);
  EXPECT_NE(repair.err.find("locked by another writer"), std::string::npos) << repair.err;
  EXPECT_TRUE(fs::exists(db + "/epoch-00000001/.tmp-y.prof-1"));
}

TEST(DatabaseFiles, FifosInPlaceOfDatabaseFilesNeverBlock) {
  TempDir dir;
  const std::string db = dir.file("db");
  make_database(db);
  ASSERT_EQ(::mkfifo((db + "/epoch-00000001/fifo.prof").c_str(), 0644), 0);
  fs::create_directory(db + "/epoch-00000003");
  ASSERT_EQ(::mkfifo((db + "/epoch-00000003/epoch.meta").c_str(), 0644), 0);
  for (const auto& arguments : std::vector<std::vector<std::string>>{
           {"db", "check", db}, {"db", "show", db}, {"prof", "--db", db}}) {
    const testing::CommandResult result = testing::run_dcpi(arguments);
    EXPECT_LT(result.seconds, 10) << arguments[0];
    EXPECT_EQ(result.exit_code, 1) << arguments[0] << ": " << result.out << result.err;
    EXPECT_NE((result.out + result.err).find("not a regular file (a FIFO)"), std::string::npos)
        << result.out << result.err;
  }
}

// ulimit -f: the write fails with EFBIG, said and cleaned up like a full disk.
TEST(DatabaseFiles, FileSizeLimitIsAnErrorNotASilentDeath) {
  TempDir dir;
  testing::write_file(dir.file("stream"), std::vector<uint8_t>(64, 0x55));
  const std::string command = "ulimit -f 0; exec '" + std::string(DCPI_BINARY) + "' ingest --db '" +
                              dir.file("db") + "' --from-file '" + dir.file("stream") + "' 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[256];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = ::pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_NE(output.find("File too large"), std::string::npos) << output;
  if (fs::exists(dir.file("db"))) {
    for (const std::string& name : names_under(dir.file("db")))
      EXPECT_FALSE(name.starts_with(".tmp-")) << name;
  }
}

}  // namespace
}  // namespace dcpi
