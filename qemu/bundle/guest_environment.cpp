#include "qemu/bundle/guest_environment.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <utility>

namespace dcpi::qemu {
namespace {

using Variable = std::pair<std::string, std::string>;

// login(1) and su - set these for root; PWD is the working directory every
// program starts in; TERM: the console is a serial line, not a terminal type.
const std::vector<Variable>& login_variables() {
  static const std::vector<Variable> variables = {
      {"PATH", "/bin:/usr/bin"}, {"HOME", "/"},       {"PWD", "/"},  {"SHELL", "/bin/sh"},
      {"USER", "root"},          {"LOGNAME", "root"}, {"LANG", "C"}, {"TERM", "dumb"}};
  return variables;
}

bool valid_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

Variable parse_setting(const std::string& setting) {
  const size_t equals = setting.find('=');
  const std::string name = setting.substr(0, equals);
  if (equals == std::string::npos || !valid_name(name))
    throw std::runtime_error("--env " + setting +
                             ": expected NAME=VALUE (a name of letters, digits and '_')");
  const std::string value = setting.substr(equals + 1);
  if (std::any_of(value.begin(), value.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
    throw std::runtime_error("--env " + name +
                             ": the value holds a newline or another control character, which "
                             "init cannot pass (one variable a line)");
  if (setting.size() > kMaxEnvironmentLineBytes)
    throw std::runtime_error("--env " + name + " is " + std::to_string(setting.size()) +
                             " bytes; init passes variables of at most " +
                             std::to_string(kMaxEnvironmentLineBytes));
  return {name, value};
}

}  // namespace

std::string environment_file(const std::vector<std::string>& settings) {
  std::vector<Variable> variables = login_variables();
  for (const std::string& setting : settings) {
    Variable variable = parse_setting(setting);
    const auto same = std::find_if(variables.begin(), variables.end(),
                                   [&](const Variable& v) { return v.first == variable.first; });
    if (same != variables.end())
      same->second = std::move(variable.second);
    else
      variables.push_back(std::move(variable));
  }
  if (variables.size() > kMaxEnvironmentVariables)
    throw std::runtime_error("--env: " + std::to_string(variables.size()) +
                             " environment variables; init passes at most " +
                             std::to_string(kMaxEnvironmentVariables));
  size_t bytes = 0;
  for (const auto& [name, value] : variables) bytes += name.size() + value.size() + 2;
  if (bytes > kMaxEnvironmentBytes)
    throw std::runtime_error("--env: the environment is " + std::to_string(bytes) +
                             " bytes; init passes at most " + std::to_string(kMaxEnvironmentBytes));
  std::string text = "# dcpi run: the programs' environment (init passes it; --env NAME=VALUE)\n";
  for (const auto& [name, value] : variables) text += name + "=" + value + "\n";
  return text;
}

std::string passwd_file() {
  return "root:x:0:0:root:/:/bin/sh\n"
         "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
}

std::string group_file() { return "root:x:0:\nnogroup:x:65534:\n"; }

}  // namespace dcpi::qemu
