# CMake's CUDA_ARCHITECTURES syntax as Kiln targets, for kiln_add_cache(ARCHITECTURES ...) and for
# projects that set CMAKE_CUDA_ARCHITECTURES. The special values mean what they mean to CMake and
# nvcc (CMake's CUDA_ARCHITECTURES property, nvcc's -arch=all and -arch=all-major):
#
#   80-real -> sm_80    80-virtual -> compute_80    80 -> sm_80 compute_80    90a-real -> sm_90a
#   all       -> sm_XY of every architecture NVRTC supports, and PTX of the highest major
#                (NVRTC 13.0: sm_75 ... sm_121, compute_120)
#   all-major -> sm_XY of the lowest architecture of each major (NVRTC 13.0: sm_75 sm_80 sm_90
#                sm_100 sm_110 sm_120), and PTX of the highest major (compute_120)
#   native    -> sm_XY of each GPU of the build machine; an error on a machine without one
#   (nothing) -> the toolkit's default architecture, as nvcc and CMake build it: the lowest NVRTC
#                supports (NVRTC 13.0: sm_75 compute_75)
#
# NVRTC's architectures are its own answer (nvrtcGetSupportedArchs), never a list written here:
# inside Kiln's own tree as Kiln's configuration asked them (generator/src/compile/CMakeLists.txt),
# with an installed Kiln from its generator (`kiln check --list-architectures`), asked once per
# configure and only when one of all, all-major or the default is used.
include_guard(GLOBAL)

# Sets `out_var` to the architectures NVRTC supports, lowest first ("75;80;...;121"). `what` names
# what needs them in the error when they cannot be had.
function(_kiln_nvrtc_architectures out_var what)
  get_property(known GLOBAL PROPERTY KILN_NVRTC_ARCHITECTURES SET)
  if(NOT known)
    set(archs "")
    set(why "")
    get_target_property(imported Kiln::kiln IMPORTED)
    if(imported)
      get_target_property(kiln Kiln::kiln LOCATION)
      execute_process(COMMAND ${kiln} check --list-architectures RESULT_VARIABLE result OUTPUT_VARIABLE output
                      ERROR_VARIABLE why)
      if(result EQUAL 0)
        string(REGEX MATCHALL "[0-9]+" archs "${output}")
      else()
        string(REGEX REPLACE "(^|\n)kiln: error: " "\\1" why "${why}")
        string(STRIP "${why}" why)
        set(why "`${kiln} check --list-architectures` failed: ${why}")
      endif()
    else()
      get_property(facts GLOBAL PROPERTY KILN_NVRTC_FACTS)   # "13 0 13 0 75 80 ...", or empty
      string(REGEX MATCHALL "[0-9]+" numbers "${facts}")
      list(LENGTH numbers count)
      if(count GREATER 4)
        list(SUBLIST numbers 4 -1 archs)
      endif()
      set(why "Kiln's configuration could not ask NVRTC (its message above says why)")
    endif()
    list(SORT archs COMPARE NATURAL)
    set_property(GLOBAL PROPERTY KILN_NVRTC_ARCHITECTURES "${archs}")
    set_property(GLOBAL PROPERTY KILN_NVRTC_ARCHITECTURES_WHY "${why}")
  endif()
  get_property(archs GLOBAL PROPERTY KILN_NVRTC_ARCHITECTURES)
  if(NOT archs)
    get_property(why GLOBAL PROPERTY KILN_NVRTC_ARCHITECTURES_WHY)
    message(FATAL_ERROR "kiln_add_cache(): ${what} needs the architectures NVRTC supports, but ${why}; "
                        "list architectures instead")
  endif()
  set(${out_var} "${archs}" PARENT_SCOPE)
endfunction()

# Sets `out_var` to the targets nvcc builds when given no architecture: its default (the lowest it
# supports), as cubin and PTX. kiln_add_cache uses it when neither the call nor the project names
# architectures, where CMake itself would build CMAKE_CUDA_ARCHITECTURES' default.
function(_kiln_default_targets out_var)
  _kiln_nvrtc_architectures(archs "the default architecture (no ARCHITECTURES, TARGETS or CMAKE_CUDA_ARCHITECTURES)")
  list(GET archs 0 lowest)
  set(${out_var} sm_${lowest} compute_${lowest} PARENT_SCOPE)
endfunction()

# PTX of the highest major's first architecture (compute_120 for NVRTC 13.0), as nvcc's -arch=all
# and -arch=all-major embed it: the image newer GPUs compile at load. `archs`: NVRTC's.
function(_kiln_highest_major_ptx out_var archs)
  set(highest "")
  foreach(arch IN LISTS archs)
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
      _kiln_nvrtc_architectures(archs "${what} all")
      foreach(arch IN LISTS archs)
        list(APPEND targets sm_${arch})
      endforeach()
      _kiln_highest_major_ptx(ptx "${archs}")
      list(APPEND targets ${ptx})
    elseif(entry STREQUAL "all-major")
      # The lowest architecture of each major: sm_75 is the whole of major 7 that NVRTC 13.0 supports.
      _kiln_nvrtc_architectures(archs "${what} all-major")
      set(majors_seen "")
      foreach(arch IN LISTS archs)
        string(REGEX REPLACE "[0-9]$" "" major "${arch}")
        if(NOT major IN_LIST majors_seen)
          list(APPEND majors_seen ${major})
          list(APPEND targets sm_${arch})
        endif()
      endforeach()
      _kiln_highest_major_ptx(ptx "${archs}")
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
