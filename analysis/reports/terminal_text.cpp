#include "analysis/reports/terminal_text.h"

#include <cstdio>

namespace dcpi {
namespace {

bool is_c0_control(unsigned char byte) {
  return (byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7f;
}

std::string escaped(unsigned char byte) {
  char text[8];
  std::snprintf(text, sizeof text, "\\x%02x", byte);
  return text;
}

}  // namespace

std::string terminal_safe(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const bool c1 = byte == 0xc2 && i + 1 < text.size() &&
                    static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9f;
    if (c1) {
      out += escaped(byte) + escaped(static_cast<unsigned char>(text[++i]));
    } else if (is_c0_control(byte)) {
      out += escaped(byte);
    } else {
      out += text[i];
    }
  }
  return out;
}

void TerminalSafeOutput::Buffer::put(unsigned char byte) {
  if (pending_c2_) {
    pending_c2_ = false;
    if (byte >= 0x80 && byte <= 0x9f) {
      const std::string text = escaped(0xc2) + escaped(byte);
      target_->sputn(text.data(), static_cast<std::streamsize>(text.size()));
      return;
    }
    target_->sputc(static_cast<char>(0xc2));
  }
  if (byte == 0xc2) {
    pending_c2_ = true;
  } else if (is_c0_control(byte)) {
    const std::string text = escaped(byte);
    target_->sputn(text.data(), static_cast<std::streamsize>(text.size()));
  } else {
    target_->sputc(static_cast<char>(byte));
  }
}

TerminalSafeOutput::Buffer::int_type TerminalSafeOutput::Buffer::overflow(int_type c) {
  if (!traits_type::eq_int_type(c, traits_type::eof())) put(static_cast<unsigned char>(c));
  return traits_type::not_eof(c);
}

std::streamsize TerminalSafeOutput::Buffer::xsputn(const char* text, std::streamsize count) {
  for (std::streamsize i = 0; i < count; ++i) put(static_cast<unsigned char>(text[i]));
  return count;
}

int TerminalSafeOutput::Buffer::sync() { return target_->pubsync(); }

void TerminalSafeOutput::Buffer::finish() {
  if (pending_c2_) target_->sputc(static_cast<char>(0xc2));
  pending_c2_ = false;
  target_->pubsync();
}

TerminalSafeOutput::TerminalSafeOutput(std::ostream& out)
    : out_(out), original_(out.rdbuf()), buffer_(original_) {
  out_.flush();
  out_.rdbuf(&buffer_);
}

TerminalSafeOutput::~TerminalSafeOutput() {
  out_.flush();
  buffer_.finish();
  out_.rdbuf(original_);
}

}  // namespace dcpi
