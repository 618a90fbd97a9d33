# CMake's CUDA_ARCHITECTURES syntax as Kiln targets, for kiln_add_cache(ARCHITECTURES ...) and for
# projects that set CMAKE_CUDA_ARCHITECTURES. The special values mean what they mean to CMake and
# nvcc (CMake's CUDA_ARCHITECTURES property, nvcc's -arch=all and -arch=all-major):
#
#   80-real -> sm_80    80-virtual -> compute_80    80 -> sm_80 compute_80    90a-real -> sm_90a
#   all       -> sm_XY of every architecture CUDA 13 supports, and PTX of the highest major
#                (sm_75 ... sm_121, compute_120)
#   all-major -> sm_XY of the lowest architecture of each major (sm_75 sm_80 sm_90 sm_100 sm_110
#                sm_120), and PTX of the highest major (compute_120)
#   native    -> sm_XY of each GPU of the build machine; an error on a machine without one
#   (nothing) -> the toolkit's default architecture, as nvcc and CMake build it: sm_75 compute_75
#
# Only the syntax is checked here: `kiln build` checks each target against the NVRTC it runs with.
include_guard(GLOBAL)

# What NVRTC 13.0 supports (nvrtcGetSupportedArchs), lowest first: expands all, all-major and the
# default (its lowest, nvcc's default architecture).
set(_KILN_CUDA13_ARCHITECTURES 75 80 86 87 88 89 90 100 103 110 120 121)

# Sets `out_var` to the targets nvcc builds when given no architecture: its default (the lowest it
# supports), as cubin and PTX. kiln_add_cache uses it when neither the call nor the project names
# architectures, where CMake itself would build CMAKE_CUDA_ARCHITECTURES' default.
function(_kiln_default_targets out_var)
  list(GET _KILN_CUDA13_ARCHITECTURES 0 lowest)
  set(${out_var} sm_${lowest} compute_${lowest} PARENT_SCOPE)
endfunction()

# PTX of the highest major's first architecture (compute_120 for CUDA 13), as nvcc's -arch=all and
# -arch=all-major embed it: the image newer GPUs compile at load.
function(_kiln_highest_major_ptx out_var)
  set(highest "")
  foreach(arch IN LISTS _KILN_CUDA13_ARCHITECTURES)
    if(arch MATCHES "0$")
      set(highest ${arch})
    endif()
  endforeach()
  set(${out_var} compute_${highest} PARENT_SCOPE)
endfunction()

# The compute capabilities of this machine's GPUs ("90" "89"), from nvidia-smi, else from the CUDA
# toolkit's __nvcc_device_query. Empty when neither finds a GPU.
function(_kiln_native_architectures out_var)
  set(found "")
  find_program(KILN_NVIDIA_SMI nvidia-smi)
  mark_as_advanced(KILN_NVIDIA_SMI)
  if(KILN_NVIDIA_SMI)
    execute_process(COMMAND ${KILN_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE output RESULT_VARIABLE result ERROR_QUIET)
    if(result EQUAL 0)
      string(REGEX MATCHALL "[0-9]+\\.[0-9]+" capabilities "${output}")
      foreach(capability IN LISTS capabilities)
        string(REPLACE "." "" arch "${capability}")
        list(APPEND found ${arch})
      endforeach()
    endif()
  endif()
  if(NOT found)
    get_property(toolkit GLOBAL PROPERTY KILN_GENERATOR_CUDA_ROOT)
    find_program(KILN_NVCC_DEVICE_QUERY __nvcc_device_query
                 HINTS ${KILN_CUDA_ROOT} $ENV{CUDA_PATH} $ENV{CUDA_HOME} ${toolkit} PATH_SUFFIXES bin)
    mark_as_advanced(KILN_NVCC_DEVICE_QUERY)
    if(KILN_NVCC_DEVICE_QUERY)
      execute_process(COMMAND ${KILN_NVCC_DEVICE_QUERY} OUTPUT_VARIABLE output RESULT_VARIABLE result ERROR_QUIET)
      if(result EQUAL 0)
        string(REGEX MATCHALL "[0-9]+" found "${output}")  # "90", or "86,90" with several GPUs
      endif()
    endif()
  endif()
  list(REMOVE_DUPLICATES found)
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

# Sets `out_var` to the Kiln targets for the CUDA_ARCHITECTURES-style list in ARGN. `what` names the
# list in errors ("ARCHITECTURES", "CMAKE_CUDA_ARCHITECTURES"). An empty result means "the
# generator's default".
function(_kiln_targets_from_architectures out_var what)
  set(entries ${ARGN})
  list(LENGTH entries count)
  set(targets "")
  foreach(entry IN LISTS entries)
    if(entry MATCHES "^(all|all-major|native)$" AND NOT count EQUAL 1)
      message(FATAL_ERROR "kiln_add_cache(): ${what} '${entry}' cannot be combined with other architectures")
    endif()
    if(entry STREQUAL "all")
      foreach(arch IN LISTS _KILN_CUDA13_ARCHITECTURES)
        list(APPEND targets sm_${arch})
      endforeach()
      _kiln_highest_major_ptx(ptx)
      list(APPEND targets ${ptx})
    elseif(entry STREQUAL "all-major")
      # The lowest architecture of each major: sm_75 is the whole of major 7 that CUDA 13 supports.
      set(majors_seen "")
      foreach(arch IN LISTS _KILN_CUDA13_ARCHITECTURES)
        string(REGEX REPLACE "[0-9]$" "" major "${arch}")
        if(NOT major IN_LIST majors_seen)
          list(APPEND majors_seen ${major})
          list(APPEND targets sm_${arch})
        endif()
      endforeach()
      _kiln_highest_major_ptx(ptx)
      list(APPEND targets ${ptx})
    elseif(entry STREQUAL "native")
      _kiln_native_architectures(native)
      if(NOT native)
        message(FATAL_ERROR "kiln_add_cache(): ${what} native, but this build machine has no GPU "
                            "(neither nvidia-smi nor __nvcc_device_query found one); list architectures instead")
      endif()
      foreach(arch IN LISTS native)
        list(APPEND targets sm_${arch})
      endforeach()
    elseif(entry MATCHES "^([0-9]+[af]?)(-real|-virtual)?$")
      set(arch ${CMAKE_MATCH_1})
      if(NOT CMAKE_MATCH_2 STREQUAL "-virtual")
        list(APPEND targets sm_${arch})
      endif()
      if(NOT CMAKE_MATCH_2 STREQUAL "-real")
        list(APPEND targets compute_${arch})
      endif()
    else()
      message(FATAL_ERROR "kiln_add_cache(): ${what} entry '${entry}' is not a CUDA architecture: expected "
                          "80, 80-real, 80-virtual, 90a-real, all, all-major or native (for Kiln's own "
                          "sm_80/compute_80 spelling use TARGETS)")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES targets)
  set(${out_var} "${targets}" PARENT_SCOPE)
endfunction()
