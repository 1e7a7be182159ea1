// Run-time helpers of the generated Fortran -> C bridges (fortran_bridge.h); the
// MPI_Message table is in fortran_messages.cpp.
#include "fortran/fortran_bridge.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <initializer_list>

// Open MPI's Fortran MPI_BOTTOM and MPI_IN_PLACE: common blocks in libmpi, under the
// manglings its Fortran compiler uses (gfortran: mpi_fortran_bottom_). Weak: absent
// manglings stay null.
extern "C" {
extern int mpi_fortran_bottom __attribute__((weak));
extern int mpi_fortran_bottom_ __attribute__((weak));
extern int mpi_fortran_bottom__ __attribute__((weak));
extern int MPI_FORTRAN_BOTTOM __attribute__((weak));
extern int mpi_fortran_in_place __attribute__((weak));
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_in_place__ __attribute__((weak));
extern int MPI_FORTRAN_IN_PLACE __attribute__((weak));
}

namespace {

bool is_one_of(const void* p, std::initializer_list<const void*> sentinels) {
  for (const void* s : sentinels)
    if (s != nullptr && p == s) return true;
  return false;
}

bool is_bottom(const void* p) {
  return is_one_of(
      p, {&mpi_fortran_bottom, &mpi_fortran_bottom_, &mpi_fortran_bottom__, &MPI_FORTRAN_BOTTOM});
}

bool is_in_place(const void* p) {
  return is_one_of(p, {&mpi_fortran_in_place, &mpi_fortran_in_place_, &mpi_fortran_in_place__,
                       &MPI_FORTRAN_IN_PLACE});
}

}  // namespace

extern "C" {

void* mcm_f2c_bottom(void* f_buffer) {
  return is_bottom(f_buffer) ? MPI_BOTTOM : f_buffer;
}

void* mcm_f2c_in_place(void* f_buffer) {
  return is_in_place(f_buffer) ? MPI_IN_PLACE : mcm_f2c_bottom(f_buffer);
}

void* mcm_f_temp(void* stack, size_t stack_bytes, size_t n, size_t size) {
  if (n <= stack_bytes / size) return stack;
  void* p = std::malloc(n * size);
  if (p == nullptr) {
    std::fprintf(stderr, "libmcm: out of memory converting a Fortran MPI call (%zu elements)\n", n);
    std::abort();
  }
  return p;
}

void mcm_f_temp_free(void* temp, void* stack) {
  if (temp != stack) std::free(temp);
}

}  // extern "C"
