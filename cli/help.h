// The flags and help text of every `tony` subcommand, in one place so that `tony help <cmd>`,
// `tony <cmd> --help` and `tony <cmd> -h` all print the same thing, and a subcommand asked for
// help never does its work (no job lookup, no bundle build).
// Thread-safety: plain functions over constant data.
#pragma once

#include <string>
#include <vector>

#include "cli/flags.h"

namespace tony::cli {

const std::vector<FlagSpec>& SubmitFlags();
const std::vector<FlagSpec>& LogsFlags();
const std::vector<FlagSpec>& StatusFlags();    // tony status
const std::vector<FlagSpec>& PortalFlags();    // tony portal
const std::vector<FlagSpec>& HelpOnlyFlags();  // subcommands whose only flag is --help

// The overview of every subcommand (`tony`, `tony help`).
std::string Usage();
// The help of one subcommand; empty when there is no such subcommand.
std::string CommandHelp(const std::string& command);

}  // namespace tony::cli
