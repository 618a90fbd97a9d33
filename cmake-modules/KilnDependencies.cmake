# Third-party libraries, all from Debian packages (scripts/install-deps.sh installs them).
#
# The runtime links zstd and xxhash statically so that the shared runtime library carries no NEEDED
# entry beyond libc/libstdc++: it must load on machines that have nothing but a driver.

find_package(PkgConfig REQUIRED)

include(KilnZstd)
if(WIN32)
  include(KilnWindowsDependencies)
else()
  # xxhash is used header-only (XXH_INLINE_ALL), so only its header is needed.
  find_path(KILN_XXHASH_INCLUDE_DIR xxhash.h REQUIRED)
  add_library(kiln_xxhash INTERFACE)
  target_include_directories(kiln_xxhash SYSTEM INTERFACE ${KILN_XXHASH_INCLUDE_DIR})
endif()

if(NOT KILN_RUNTIME_ONLY)
  find_package(tomlplusplus CONFIG QUIET)
  if(NOT tomlplusplus_FOUND)
    pkg_check_modules(TOMLPP REQUIRED IMPORTED_TARGET tomlplusplus)
    add_library(tomlplusplus::tomlplusplus ALIAS PkgConfig::TOMLPP)
  endif()
  find_package(CLI11 CONFIG REQUIRED)
  find_package(nlohmann_json CONFIG REQUIRED)
  find_package(fmt CONFIG REQUIRED)
  find_package(CUDAToolkit 13 REQUIRED)
  # The remote compile cache (generator/src/remote): libcurl for HTTP, hiredis for Redis, libsodium
  # for the Ed25519 signatures of its entries (and the REAPI's SHA-256 digests), inih for the AWS CLI's credentials and config files (S3).
  find_package(CURL REQUIRED)
  pkg_check_modules(HIREDIS REQUIRED IMPORTED_TARGET hiredis)
  pkg_check_modules(SODIUM REQUIRED IMPORTED_TARGET libsodium)
  pkg_check_modules(INIH REQUIRED IMPORTED_TARGET inih)
  # The REAPI cache (grpc://, grpcs://): libgrpc++ and protobuf's lite runtime, with protoc and gRPC's
  # plugin generating the messages and stubs from generator/src/remote/reapi/proto at build time.
  pkg_check_modules(GRPCPP REQUIRED IMPORTED_TARGET grpc++)
  pkg_check_modules(PROTOBUF_LITE REQUIRED IMPORTED_TARGET protobuf-lite)
  find_program(KILN_PROTOC protoc REQUIRED)
  find_program(KILN_GRPC_CPP_PLUGIN grpc_cpp_plugin REQUIRED)
  # Link NVRTC and nvJitLink by file, not through CUDA::nvrtc: that target drags in the driver stub
  # (cuda-platform-facts.md section 6.1), and kiln must run on machines with no driver.
  find_library(KILN_NVRTC_LIBRARY nvrtc HINTS ${CUDAToolkit_LIBRARY_DIR} REQUIRED NO_DEFAULT_PATH)
  find_library(KILN_NVJITLINK_LIBRARY nvJitLink HINTS ${CUDAToolkit_LIBRARY_DIR} REQUIRED NO_DEFAULT_PATH)
  # The scanner (generator/src/scan) parses CUDA sources with clang 19's libTooling, linked as the
  # shared clang-cpp and LLVM libraries (Debian: clang-19, libclang-19-dev, llvm-19-dev).
  # Its config accepts only an exact version, so the major version is checked by hand.
  find_package(Clang CONFIG REQUIRED HINTS /usr/lib/llvm-19/lib/cmake/clang)
  if(NOT LLVM_VERSION_MAJOR EQUAL 19)
    message(FATAL_ERROR "Kiln's scanner needs clang 19; found ${LLVM_PACKAGE_VERSION} in ${Clang_DIR}")
  endif()
endif()
