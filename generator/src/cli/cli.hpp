// The `kiln` command line: a table of subcommands over the generator's stages.
#pragma once

namespace kiln::cli {

// Runs `kiln` with the process arguments and returns the process exit code (see docs/cli.md).
int run(int argc, char** argv);

}  // namespace kiln::cli
