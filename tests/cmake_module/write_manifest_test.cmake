# KilnWriteManifest.cmake on include directories under the project, the build tree (generated
# headers), Kiln's own include directory (what SCAN_TARGETS brings with a target that links
# Kiln::runtime) and the toolkit: two checkouts at different depths with their build trees inside
# and outside them write the same manifest; an in-source build keeps paths relative to the project.
# A source's own directories (KILN_INCLUDE_DIRECTORIES) are named as the call's are.
#
#   cmake -DKILN_MODULES=<cmake-modules> -DWORK=<scratch dir> -P write_manifest_test.cmake
cmake_minimum_required(VERSION 3.20)

file(REMOVE_RECURSE "${WORK}")

# The manifest written for a project at `root` built in `build`, with Kiln at `kiln`.
function(write_manifest out root build kiln)
  file(MAKE_DIRECTORY "${root}/include" "${root}/kernels" "${build}/gen" "${kiln}/include/kiln" "${WORK}/cuda/include")
  file(WRITE "${root}/kernels/k.cu" "__global__ void k() {}\n")
  set(dirs "${root}/include" "${build}/gen" "${kiln}/include" "${WORK}/cuda/include" "${root}/../shared")
  file(MAKE_DIRECTORY "${root}/../shared")
  file(WRITE "${build}/inputs.cmake"
       "set(KILN_NAME k)\nset(KILN_ROOT [==[${root}]==])\nset(KILN_TARGETS sm_90)\n"
       "set(KILN_SOURCE_0 [==[${root}/kernels/k.cu]==])\nset(KILN_SOURCE_COUNT 1)\nset(KILN_KERNELS_PER_IMAGE \"\")\n"
       "set(KILN_SOURCE_0_CARRY_SOURCES \"\")\n"
       "set(KILN_SOURCE_0_INCLUDE_DIRECTORIES [==[${root}/kernels;${build}/gen;${root}/kernels/]==])\n"
       "set(KILN_INCLUDE_DIRECTORIES [==[${dirs}]==])\nset(KILN_TOOLKITS [==[${WORK}/cuda]==])\n"
       "set(KILN_BUILD_DIR [==[${build}]==])\nset(KILN_OWN_INCLUDE_DIR [==[${kiln}/include]==])\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -DKILN_INPUTS=${build}/inputs.cmake -DKILN_MANIFEST=${build}/kiln.toml
                          -P ${KILN_MODULES}/KilnWriteManifest.cmake RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "KilnWriteManifest.cmake failed for ${root}")
  endif()
  file(READ "${build}/kiln.toml" manifest)
  set(${out} "${manifest}" PARENT_SCOPE)
endfunction()

# Fails unless `manifest` has the include_dirs line `expected`, saying `why`.
function(expect_include_dirs manifest expected why)
  string(FIND "${manifest}" "include_dirs = [${expected}]\n" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${why}:\n${manifest}")
  endif()
endfunction()

write_manifest(first "${WORK}/a/project" "${WORK}/a/project/build" "${WORK}/opt/kiln")
expect_include_dirs("${first}" [["include", "<build>/gen", "<kiln>", "<cuda>/include", "../shared"]]
                    "include directories not named by their roots")
# A source's KILN_INCLUDE_DIRECTORIES are named the same way, each once, in its [[source]].
expect_include_dirs("${first}" [["kernels", "<build>/gen"]] "a source's include directories")
write_manifest(second "${WORK}/deep/er/b/project" "${WORK}/elsewhere/build-2" "${WORK}/other/kiln")
if(NOT first STREQUAL second)
  message(FATAL_ERROR "another checkout, build tree and Kiln write another manifest:\n${first}\n---\n${second}")
endif()
write_manifest(in_source "${WORK}/c/project" "${WORK}/c/project" "${WORK}/opt/kiln")
expect_include_dirs("${in_source}" [["include", "gen", "<kiln>", "<cuda>/include", "../shared"]]
                    "an in-source build names its generated headers relative to the project")
