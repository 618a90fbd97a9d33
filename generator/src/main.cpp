#include "cli/cli.hpp"

int main(int argc, char** argv) { return kiln::cli::run(argc, argv); }
