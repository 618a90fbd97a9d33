# consumer_layouts' installed package: shapes, and the cache k it links PUBLIC (an INTERFACE target
# that links Kiln::runtime, so Kiln is found first).
include(CMakeFindDependencyMacro)
find_dependency(Kiln 0.1 CONFIG)
include(${CMAKE_CURRENT_LIST_DIR}/layoutsTargets.cmake)
