/* Launch setting for MPICH 4.0.2 (ch4:ucx) when ranks outnumber cores.
 *
 * MPICH 4.0.2 on Linux builds its yield macro as a no-op, and its wait loops
 * (progress engine, the shared-memory release/gather collectives) poll
 * without ever giving the CPU away; with more ranks than cores each
 * collective then costs whole scheduler ticks (about 5 ms at 4 ranks and
 * 25 ms at 8 ranks on a 2-core machine). Loaded with LD_PRELOAD, this wraps
 * UCX's ucp_worker_progress() and yields the CPU after a poll that completed
 * nothing. The library, its algorithms, transports and thread level are
 * unchanged: only idle waiting is shortened. Measured effect: see
 * vendors/mpich/adapter.json ("launch_settings"). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stddef.h>

typedef unsigned (*progress_fn)(void* worker);

unsigned ucp_worker_progress(void* worker) {
  static progress_fn real;
  if (real == NULL) real = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
  const unsigned completed = real(worker);
  if (completed == 0) sched_yield();
  return completed;
}
