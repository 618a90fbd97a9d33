// Image parts: a unit asked for more kernels than its 'kernels_per_image' is built as several units,
// each compiling the same source for its share of the names, so that the first use of one kernel
// loads an image of a bounded number of kernels: the driver's load of an image grows with its bytes
// (0.07 ms for 10 small kernels, 67 ms for 10,000: bench/results/image-parts.md).
//
// The first part is the unit itself, under its own name: it keeps every kernel the compiler builds
// whatever it is asked (plain kernels, instantiations the source's text makes, kernels no scan saw)
// and the first names. Part k (from 2) is a unit named "<name>#<k>" whose images hold only the
// kernels its names lower to (CompileJob::link_named_kernels_only). The package records a part as a
// variant of its source whose kernels are not variant kernels (docs/package-format.md, "Image parts").
#pragma once

#include "plan/planned_unit.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace kiln::plan {

// "ops.cu#3": part `part` (2 and up) of the unit named `unit`. No manifest unit has such a name: a
// variant's or link group's cannot hold '#', and a source named so is checked for (make_plan).
std::string part_name(const std::string& unit, std::size_t part);

// Why `unit` is built whole although it asks for more kernels than its bound; "" when it can be
// split, or needs not be.
std::string why_whole(const PlannedUnit& unit);

// The units `unit` is built as: itself when it is within its bound or cannot be split (why_whole),
// else its parts in order. Names of one kernel (a request and its canonical spelling) stay together.
std::vector<PlannedUnit> split_into_parts(PlannedUnit unit);

// For `kiln build -v`: a line per unit built as parts ("image parts: ops.cu: 70 kernels in 5 parts
// of at most 16"), and per unit over its bound built whole, saying why. `units` are a plan's.
std::vector<std::string> describe_parts(const std::vector<PlannedUnit>& units);

}  // namespace kiln::plan
