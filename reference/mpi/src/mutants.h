// Fault injection for the mutant vendor (vendors/mutants/): the same source
// built twice. In the reference library (ORDO_REFMPI_MUTANTS undefined)
// every hook is the constant false and compiles away; in the mutant library
// exactly one fault, named by the environment variable ORDO_MUTANT, is
// active in each process. vendors/mutants/mutants.json describes each one.
#pragma once

namespace ordo::refmpi {

enum class Mutant {
  none,
  // ordering
  reverse_rank_order,
  pairs_out_of_order,
  fold_from_root,
  // operand orientation
  swap_operands,
  reduce_local_swapped,
  reduce_locals_swapped_inputs,
  // roots
  result_at_wrong_root,
  intercomm_root_off_by_one,
  // in-place
  ignore_in_place,
  // intercommunicator groups
  intercomm_own_group,
  // datatypes and holes
  write_holes,
  datatype_as_contiguous,
  // buffers
  modify_send_buffer,
  write_past_end,
  // the user-function contract
  wrong_datatype_handle,
  user_fn_len_zero,
  split_len_same_offset,
  // counts
  drop_last_element,
  count_zero_writes,
  // the op table
  max_as_min_int,
  minloc_tie_larger_index,
  // scan and exscan
  scan_exclusive,
  exscan_rank1_inclusive,
  // reduce_scatter
  reduce_scatter_shifted,
  // nonblocking and persistent forms
  nonblocking_result_not_written,
  persistent_start_no_op,
  persistent_restart_stale,
  // commutative user ops
  commutative_user_op_drops_last,
  // concurrency
  outstanding_results_swapped,
  // communicator kinds
  intercomm_remote_in_world_order,
  // user functions of MPI_Op_create_c
  large_count_user_fn_swapped,
  // datatype classes: the Fortran types called from C
  fortran_type_handle_dup,
  // the Fortran binding: MPI_IN_PLACE from Fortran not recognised
  fortran_in_place_ignored,
  // the MPI-5.0 standard ABI: a user function handed the library's own handle
  abi_internal_datatype_handle,
  // failures of the process
  hang_reduce_at_4_ranks,
  hang_reduce_one_count_root,
  crash_allreduce_large_count,
  count_
};

// The name ORDO_MUTANT uses ("reverse-rank-order"), "none" for Mutant::none.
const char* mutant_name(Mutant m);

// Why the mutant has no fault in this build, or nullptr where it has one: the
// fault of abi-internal-datatype-handle exists only in a build through the
// MPI-5.0 standard ABI (ORDO_ABI_BUILD), that of fortran-in-place-ignored only
// in a build with the library's Fortran binding (not through the ABI).
// vendors/mutants/mutants.json says the same ("abi_only", "native_only"); the
// library refuses such a mutant rather than run without its fault.
const char* mutant_not_in_this_build(Mutant m);

#ifdef ORDO_REFMPI_MUTANTS
// The mutants of this process: ORDO_MUTANT, one name or several separated by
// commas (a library with more than one fault), read once; an unknown name
// aborts. active_mutant() is the first of them.
Mutant active_mutant();
bool mutant(Mutant m);
#else
constexpr Mutant active_mutant() { return Mutant::none; }
constexpr bool mutant(Mutant) { return false; }
#endif

}  // namespace ordo::refmpi
