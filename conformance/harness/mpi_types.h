// The bridge between the reference's datatype / op model and an MPI
// library's handles: basic types by name, derived types built with the
// same constructors, witness ops registered with MPI_Op_create.
#pragma once

#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include "ordo/reference/datatype.h"

namespace ordo::harness {

// The library's handle for a basic type; MPI_DATATYPE_NULL if it lacks it.
MPI_Datatype mpi_basic(ref::Basic b);
// Verifies the reference's sizes and extents against the library; returns
// one message per mismatch (empty when all agree).
std::vector<std::string> verify_basic_types();

// A committed MPI datatype for a reference datatype, cached by its text, and
// known to the witness ops' user functions. Returns MPI_DATATYPE_NULL and
// sets *why when the library lacks a basic type the datatype needs (a skip),
// or when a constructor or MPI_Type_commit returned an error: then *failed
// is set too and *why names the call and the library's error string (a fail).
MPI_Datatype mpi_datatype(const ref::Datatype& dt, std::string* why, bool* failed = nullptr);
// A new handle of the datatype, built and committed for one call (not kept
// for others): user functions know it until forget_datatype(handle).
MPI_Datatype mpi_datatype_fresh(const ref::Datatype& dt, std::string* why, bool* failed = nullptr);
void forget_datatype(MPI_Datatype handle);
// Whether ordo must leave the handle of dt alone: a predefined datatype (a
// basic type, or a pair from MPI_Type_get_value_index, which "cannot be
// freed", MPI-4.1 6.9.4), or one the library names (MPI_COMBINER_NAMED).
bool must_not_free(const ref::Datatype& dt, MPI_Datatype handle);
// Why the library cannot build value_index(...) datatypes: empty where it has
// MPI_Type_get_value_index (MPI-4.1).
std::string value_index_lacks();
// The reference datatype behind a handle the library passed to a user function.
const ref::Datatype* reference_datatype(MPI_Datatype dt);

// MPI op handle for a case's op name (predefined or witness). When
// MPI_Op_create returns an error: MPI_OP_NULL, and *error names the library's
// error string. binding (a case's: c, f08, f90): the language of the witness
// ops' user functions and of the MPI_Op_create that makes them (a Fortran
// op's handle converted with MPI_Op_f2c).
MPI_Op mpi_op(const std::string& name, std::string* error = nullptr,
              const std::string& binding = "c");
// A new handle of a user op (MPI_Op_create) for one call; MPI_OP_NULL for a
// predefined op, or with *error set when MPI_Op_create failed.
MPI_Op mpi_op_fresh(const std::string& name, std::string* error = nullptr,
                    const std::string& binding = "c");

// Calls the witness functions saw with a datatype handle they did not know
// (a user-function contract violation), since the last reset.
int unknown_datatype_calls();
void reset_unknown_datatype_calls();

// What the library handed to the "witness.recorder" user function, call by
// call, since the last reset.
struct RecordedCall {
  int len;
  MPI_Datatype datatype;
};
const std::vector<RecordedCall>& recorded_calls();
void reset_recorded_calls();

std::string error_string(int code);

}  // namespace ordo::harness
