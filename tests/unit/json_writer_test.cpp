// The one JSON writer (analysis/reports/json_writer.h): both spellings, line
// breaks, escapes and the number formats the commands rely on.
#include "analysis/reports/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

namespace dcpi {
namespace {

TEST(JsonWriter, CompactIsWhatTheReportCommandsWrite) {
  std::ostringstream out;
  JsonWriter json(out);
  json.begin_object().field("a", 1).key("b").begin_array().value("x").null().end_array();
  json.field("c", 75.0, 2).field("d", true).end_object();
  EXPECT_EQ(out.str(), "{\"a\":1,\"b\":[\"x\",null],\"c\":75.00,\"d\":true}\n");
}

TEST(JsonWriter, SpacedWithLinesIsWhatCalcWrites) {
  std::ostringstream out;
  JsonWriter json(out, JsonWriter::Style::kSpaced);
  json.begin_object(JsonWriter::Break::kLines).real_field("period", 63487.5);
  json.field("period_source", "default").key("notes").begin_array().end_array();
  json.key("rows").begin_array(JsonWriter::Break::kLines);
  json.begin_object().address_field("address", 0x9834).field("n", uint64_t{2}).end_object();
  json.end_array().end_object();
  EXPECT_EQ(out.str(),
            "{\n  \"period\": 63487.5,\n  \"period_source\": \"default\",\n  \"notes\": [],\n"
            "  \"rows\": [\n    {\"address\": \"0x9834\", \"n\": 2}\n  ]\n}\n");
}

TEST(JsonWriter, StringsAreEscapedAndOddNumbersBecomeNull) {
  EXPECT_EQ(json_string("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\u000a\\u0001\"");
  std::ostringstream out;
  JsonWriter json(out, JsonWriter::Style::kSpaced);
  json.begin_array().real(std::nullopt).real(NAN).value(INFINITY, 1).real(1.0 / 3, 6);
  json.end_array();
  EXPECT_EQ(out.str(), "[null, null, null, 0.333333]\n");
}

}  // namespace
}  // namespace dcpi
