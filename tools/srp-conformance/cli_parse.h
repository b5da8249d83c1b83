// SPDX-License-Identifier: GPL-2.0-only
//
// What the command lines of srp-conformance (cli.cpp) and srp-dm have in
// common on top of CLI11 (internal header).
#ifndef SRP_CLIENT_CLI_PARSE_H
#define SRP_CLIENT_CLI_PARSE_H

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace srp::cli {

// An option that takes one value a use, the next argument (whatever it
// looks like) or what follows '='. Every use is handed to @take, in order,
// so the last one counts where @take assigns.
inline CLI::Option *value(CLI::App &app, const std::string &name,
                          std::function<void(const std::string &)> take) {
  return app
      .add_option_function<std::vector<std::string>>(
          name,
          [take = std::move(take)](const std::vector<std::string> &vs) {
            for (const auto &v : vs) take(v);
          })
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
}

// A flag; "--flag=VALUE" is an error.
inline CLI::Option *flag(CLI::App &app, const std::string &name, bool *b) {
  return app.add_flag(name, *b)->disable_flag_override();
}

// Parses @args (without the program name) with @app. Empty on success,
// else CLI11's complaint or "unknown option 'X'" for the first argument
// that no option took. The help is the programs' own: @app must have no
// help flag of CLI11's (set_help_flag()) and allow extras.
inline std::string parse(CLI::App &app, const std::vector<std::string> &args) {
  try {
    std::vector<std::string> rev(args.rbegin(), args.rend());
    app.parse(rev);  // CLI11 takes the arguments last first
  } catch (const CLI::ParseError &e) {
    return e.what();
  }
  if (!app.remaining().empty())
    return "unknown option '" + app.remaining().front() + "'";
  return "";
}

}  // namespace srp::cli

#endif  // SRP_CLIENT_CLI_PARSE_H
