/* A stand-in for <omp.h>, the OpenMP runtime API (OpenMP 5.2, chapter 18), for sources nvcc compiles
 * with `-Xcompiler -fopenmp`: clang 19 ships none, and GCC's does not parse under clang. Found only
 * when no real omp.h is (it sits in an -idirafter directory). Declarations only: the scanner never
 * compiles. The pragmas themselves are ignored, since the scan does not pass -fopenmp. */
#pragma clang system_header
#ifndef __KILN_OMP_H
#define __KILN_OMP_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { void* _p[2]; } omp_lock_t;
typedef struct { void* _p[4]; } omp_nest_lock_t;
typedef enum omp_sched_t {
  omp_sched_static = 1, omp_sched_dynamic = 2, omp_sched_guided = 3, omp_sched_auto = 4,
  omp_sched_monotonic = (int)0x80000000u
} omp_sched_t;
typedef enum omp_proc_bind_t {
  omp_proc_bind_false = 0, omp_proc_bind_true = 1, omp_proc_bind_primary = 2, omp_proc_bind_master = 2,
  omp_proc_bind_close = 3, omp_proc_bind_spread = 4
} omp_proc_bind_t;
typedef enum omp_sync_hint_t {
  omp_sync_hint_none = 0, omp_sync_hint_uncontended = 1, omp_sync_hint_contended = 2,
  omp_sync_hint_nonspeculative = 4, omp_sync_hint_speculative = 8
} omp_sync_hint_t;
typedef omp_sync_hint_t omp_lock_hint_t;
typedef enum omp_pause_resource_t { omp_pause_soft = 1, omp_pause_hard = 2 } omp_pause_resource_t;
typedef enum omp_control_tool_result_t {
  omp_control_tool_notool = -2, omp_control_tool_nocallback = -1, omp_control_tool_success = 0,
  omp_control_tool_ignored = 1
} omp_control_tool_result_t;
typedef __UINTPTR_TYPE__ omp_uintptr_t;
typedef omp_uintptr_t omp_allocator_handle_t;
typedef omp_uintptr_t omp_memspace_handle_t;
typedef struct omp_alloctrait_t { int key; omp_uintptr_t value; } omp_alloctrait_t;
typedef void* omp_depend_t;
typedef omp_uintptr_t omp_event_handle_t;
#define omp_null_allocator ((omp_allocator_handle_t)0)
#define omp_default_mem_alloc ((omp_allocator_handle_t)1)
#define omp_large_cap_mem_alloc ((omp_allocator_handle_t)2)
#define omp_const_mem_alloc ((omp_allocator_handle_t)3)
#define omp_high_bw_mem_alloc ((omp_allocator_handle_t)4)
#define omp_low_lat_mem_alloc ((omp_allocator_handle_t)5)
#define omp_cgroup_mem_alloc ((omp_allocator_handle_t)6)
#define omp_pteam_mem_alloc ((omp_allocator_handle_t)7)
#define omp_thread_mem_alloc ((omp_allocator_handle_t)8)
#define omp_default_mem_space ((omp_memspace_handle_t)0)

/* Parallel region and team routines */
void omp_set_num_threads(int num_threads);
int omp_get_num_threads(void);
int omp_get_max_threads(void);
int omp_get_thread_num(void);
int omp_get_num_procs(void);
int omp_in_parallel(void);
void omp_set_dynamic(int dynamic_threads);
int omp_get_dynamic(void);
int omp_get_cancellation(void);
void omp_set_nested(int nested);
int omp_get_nested(void);
void omp_set_schedule(omp_sched_t kind, int chunk_size);
void omp_get_schedule(omp_sched_t* kind, int* chunk_size);
int omp_get_thread_limit(void);
int omp_get_supported_active_levels(void);
void omp_set_max_active_levels(int max_levels);
int omp_get_max_active_levels(void);
int omp_get_level(void);
int omp_get_ancestor_thread_num(int level);
int omp_get_team_size(int level);
int omp_get_active_level(void);
/* Thread affinity */
omp_proc_bind_t omp_get_proc_bind(void);
int omp_get_num_places(void);
int omp_get_place_num_procs(int place_num);
void omp_get_place_proc_ids(int place_num, int* ids);
int omp_get_place_num(void);
int omp_get_partition_num_places(void);
void omp_get_partition_place_nums(int* place_nums);
/* Teams, tasks, devices */
int omp_get_num_teams(void);
int omp_get_team_num(void);
void omp_set_num_teams(int num_teams);
int omp_get_max_teams(void);
void omp_set_teams_thread_limit(int thread_limit);
int omp_get_teams_thread_limit(void);
int omp_in_final(void);
int omp_get_max_task_priority(void);
void omp_fulfill_event(omp_event_handle_t event);
void omp_set_default_device(int device_num);
int omp_get_default_device(void);
int omp_get_num_devices(void);
int omp_get_device_num(void);
int omp_is_initial_device(void);
int omp_get_initial_device(void);
int omp_pause_resource(omp_pause_resource_t kind, int device_num);
int omp_pause_resource_all(omp_pause_resource_t kind);
/* Device memory */
void* omp_target_alloc(__SIZE_TYPE__ size, int device_num);
void omp_target_free(void* device_ptr, int device_num);
int omp_target_is_present(const void* ptr, int device_num);
int omp_target_is_accessible(const void* ptr, __SIZE_TYPE__ size, int device_num);
int omp_target_memcpy(void* dst, const void* src, __SIZE_TYPE__ length, __SIZE_TYPE__ dst_offset,
                      __SIZE_TYPE__ src_offset, int dst_device_num, int src_device_num);
int omp_target_associate_ptr(const void* host_ptr, const void* device_ptr, __SIZE_TYPE__ size,
                             __SIZE_TYPE__ device_offset, int device_num);
int omp_target_disassociate_ptr(const void* ptr, int device_num);
void* omp_get_mapped_ptr(const void* ptr, int device_num);
/* Locks */
void omp_init_lock(omp_lock_t* lock);
void omp_init_lock_with_hint(omp_lock_t* lock, omp_sync_hint_t hint);
void omp_destroy_lock(omp_lock_t* lock);
void omp_set_lock(omp_lock_t* lock);
void omp_unset_lock(omp_lock_t* lock);
int omp_test_lock(omp_lock_t* lock);
void omp_init_nest_lock(omp_nest_lock_t* lock);
void omp_init_nest_lock_with_hint(omp_nest_lock_t* lock, omp_sync_hint_t hint);
void omp_destroy_nest_lock(omp_nest_lock_t* lock);
void omp_set_nest_lock(omp_nest_lock_t* lock);
void omp_unset_nest_lock(omp_nest_lock_t* lock);
int omp_test_nest_lock(omp_nest_lock_t* lock);
/* Timing, memory management, tools, environment */
double omp_get_wtime(void);
double omp_get_wtick(void);
omp_allocator_handle_t omp_init_allocator(omp_memspace_handle_t memspace, int ntraits,
                                          const omp_alloctrait_t traits[]);
void omp_destroy_allocator(omp_allocator_handle_t allocator);
void omp_set_default_allocator(omp_allocator_handle_t allocator);
omp_allocator_handle_t omp_get_default_allocator(void);
void* omp_alloc(__SIZE_TYPE__ size, omp_allocator_handle_t allocator);
void* omp_aligned_alloc(__SIZE_TYPE__ alignment, __SIZE_TYPE__ size, omp_allocator_handle_t allocator);
void* omp_calloc(__SIZE_TYPE__ nmemb, __SIZE_TYPE__ size, omp_allocator_handle_t allocator);
void* omp_realloc(void* ptr, __SIZE_TYPE__ size, omp_allocator_handle_t allocator,
                  omp_allocator_handle_t free_allocator);
void omp_free(void* ptr, omp_allocator_handle_t allocator);
int omp_control_tool(int command, int modifier, void* arg);
void omp_display_env(int verbose);
void omp_display_affinity(const char* format);
__SIZE_TYPE__ omp_capture_affinity(char* buffer, __SIZE_TYPE__ size, const char* format);
void omp_set_affinity_format(const char* format);
__SIZE_TYPE__ omp_get_affinity_format(char* buffer, __SIZE_TYPE__ size);

#ifdef __cplusplus
}
#endif

#endif /* __KILN_OMP_H */
