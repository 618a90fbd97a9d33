/* Kiln runtime: launches with attributes, kernel attributes and occupancy (since 0.3.0).
 *
 * Part of the C interface: include it beside kiln.h (it includes kiln.h); kiln.h's conventions hold here
 * (statuses, kiln_last_error, thread safety). Each call works on the device of the calling thread's
 * current context (device 0's primary context if there is none, as kiln_package_get_kernel does),
 * loading the kernel's image there on first use. A NULL argument is KILN_STATUS_INVALID_ARGUMENT
 * and the message names the call, the argument and, where there is one, the kernel; a call the
 * driver refuses is KILN_STATUS_DRIVER_ERROR and the message names the kernel, the device, the
 * driver call and its error name. The driver calls below need CUDA 12.0 drivers (which every driver
 * Kiln loads is); a driver without one fails that call alone, with CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER.
 */
#ifndef KILN_LAUNCH_H
#define KILN_LAUNCH_H

#include "kiln/kiln.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Launching with attributes (cuLaunchKernelEx) -------------------------------------------- */

/* How to launch. Versioned like kiln_image: the caller sets struct_size to sizeof(kiln_launch_config)
 * and fields are only ever appended. A runtime reads the first struct_size bytes; fields past them
 * (from a caller built against an older header) take their zero defaults; bytes past the fields this
 * runtime knows (from a newer header) must be zero, or the launch is refused (INVALID_ARGUMENT)
 * rather than silently dropping an attribute it cannot apply. Zero-initialize, then set: */
typedef struct kiln_launch_config {
  size_t struct_size;            /* sizeof(kiln_launch_config) */
  kiln_dim3 grid;                /* blocks */
  kiln_dim3 block;               /* threads per block */
  uint32_t shared_memory_bytes;  /* dynamic shared memory per block; above 48 KiB is allowed, as for
                                    kiln_kernel_launch */
  void* stream;                  /* a CUstream; NULL: the current context's default stream */
  kiln_dim3 cluster;             /* blocks per thread block cluster (CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
                                    compute capability 9.0+; each grid dimension a multiple of it; up to
                                    8 blocks is portable). {0,0,0}: no cluster attribute. Either all
                                    three are 0 or all are at least 1. */
  int32_t cooperative;           /* nonzero: a cooperative launch (CU_LAUNCH_ATTRIBUTE_COOPERATIVE), so
                                    that the grid may synchronize (cooperative_groups::this_grid().sync());
                                    every block must be resident at once (see kiln_kernel_max_active_blocks) */
  int32_t has_priority;          /* nonzero: pass `priority` (CU_LAUNCH_ATTRIBUTE_PRIORITY) */
  int32_t priority;              /* the launch's priority, as stream priorities count (lower numbers are
                                    higher priority; cuCtxGetStreamPriorityRange bounds it) */
} kiln_launch_config;

/* Launches as kiln_kernel_launch does (the same check that arg_count equals the kernel's parameter
 * count, KILN_STATUS_ARGUMENT_MISMATCH otherwise; the same raising of the dynamic shared memory
 * limit above 48 KiB), through cuLaunchKernelEx with the attributes `config` sets. A config with no
 * attribute set launches through cuLaunchKernelEx too, with none.
 * Errors: a NULL kernel or config, struct_size below the first version's size, a cluster with some
 * but not all dimensions 0, or nonzero bytes past the known fields: INVALID_ARGUMENT; the driver's
 * refusal (a cluster on a device below 9.0, a cooperative grid larger than fits at once): DRIVER_ERROR. */
KILN_API kiln_status kiln_kernel_launch_ex(kiln_kernel* kernel, const kiln_launch_config* config, void** args,
                                           size_t arg_count);

/* ---- Kernel attributes (cuKernelGetAttribute) -------------------------------------------------- */

/* What kiln_kernel_attribute reads, for the current context's device. Written in stone: never
 * renumbered, only appended (Kiln's own numbers; each maps to the CU_FUNC_ATTRIBUTE_* named). */
typedef enum kiln_kernel_attribute_kind {
  KILN_KERNEL_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,     /* MAX_THREADS_PER_BLOCK: the largest block it launches with */
  KILN_KERNEL_ATTRIBUTE_REGISTERS = 2,                 /* NUM_REGS: registers per thread */
  KILN_KERNEL_ATTRIBUTE_STATIC_SHARED_BYTES = 3,       /* SHARED_SIZE_BYTES: static shared memory per block */
  KILN_KERNEL_ATTRIBUTE_CONST_BYTES = 4,               /* CONST_SIZE_BYTES: user __constant__ memory */
  KILN_KERNEL_ATTRIBUTE_LOCAL_BYTES = 5,               /* LOCAL_SIZE_BYTES: local memory per thread */
  KILN_KERNEL_ATTRIBUTE_MAX_DYNAMIC_SHARED_BYTES = 6,  /* MAX_DYNAMIC_SHARED_SIZE_BYTES: the current limit
                                                          (48 KiB unless a launch above it raised it) */
  KILN_KERNEL_ATTRIBUTE_PTX_VERSION = 7,               /* PTX_VERSION: major * 10 + minor of the PTX target */
  KILN_KERNEL_ATTRIBUTE_BINARY_VERSION = 8,            /* BINARY_VERSION: major * 10 + minor of the binary */
  KILN_KERNEL_ATTRIBUTE_CACHE_MODE_CA = 9,             /* CACHE_MODE_CA: 1 if compiled with -Xptxas --dlcm=ca */
  KILN_KERNEL_ATTRIBUTE_PREFERRED_SHARED_CARVEOUT = 10,  /* PREFERRED_SHARED_MEMORY_CARVEOUT: percent */
  KILN_KERNEL_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET = 11,   /* CLUSTER_SIZE_MUST_BE_SET */
  KILN_KERNEL_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH = 12,     /* REQUIRED_CLUSTER_WIDTH (__cluster_dims__) */
  KILN_KERNEL_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT = 13,    /* REQUIRED_CLUSTER_HEIGHT */
  KILN_KERNEL_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH = 14,     /* REQUIRED_CLUSTER_DEPTH */
  KILN_KERNEL_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 15,  /* NON_PORTABLE_CLUSTER_SIZE_ALLOWED */
  KILN_KERNEL_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY = 16   /* CLUSTER_SCHEDULING_POLICY_PREFERENCE */
} kiln_kernel_attribute_kind;

/* Reads `attribute` of the kernel on the current context's device into *value (0 after a failure).
 * Errors: a NULL kernel or value, or an attribute not in kiln_kernel_attribute_kind: INVALID_ARGUMENT. */
KILN_API kiln_status kiln_kernel_attribute(kiln_kernel* kernel, kiln_kernel_attribute_kind attribute, int* value);

/* ---- Occupancy (cuOccupancy*) ------------------------------------------------------------------ */

/* How many blocks of `block_size` threads, each with `dynamic_shared_bytes` of dynamic shared memory,
 * can be resident on one multiprocessor of the current context's device at once
 * (cuOccupancyMaxActiveBlocksPerMultiprocessor). Above 48 KiB the kernel's limit is first raised as
 * a launch would raise it, so the answer is what such a launch gets; above the device's opt-in limit
 * nothing fits and the answer is the driver's (0). *blocks_per_sm is 0 after a failure.
 * Errors: a NULL kernel or blocks_per_sm, or block_size below 1: INVALID_ARGUMENT. */
KILN_API kiln_status kiln_kernel_max_active_blocks(kiln_kernel* kernel, int block_size, size_t dynamic_shared_bytes,
                                                   int* blocks_per_sm);

/* The block size that maximizes occupancy with `dynamic_shared_bytes` per block whatever the block
 * size, at most `block_size_limit` threads (0: the kernel's and device's own limit), and the smallest
 * grid that reaches that occupancy on the whole device (cuOccupancyMaxPotentialBlockSize). Both
 * outputs are 0 after a failure. Errors: a NULL kernel or output, or block_size_limit below 0:
 * INVALID_ARGUMENT. */
KILN_API kiln_status kiln_kernel_suggest_block_size(kiln_kernel* kernel, size_t dynamic_shared_bytes,
                                                    int block_size_limit, int* min_grid_size, int* block_size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_LAUNCH_H */
