#!/usr/bin/env bash
# Checks that mcmrun finds libmcm.so and mcmd by itself both in the build tree and after
# `cmake --install` to a fresh prefix, by running a real (single-host) job from each; and
# that a project of its own finds the install with find_package(mcm) and runs its MPI
# test under the imported mcm::mcmrun.
# Usage: install_test.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$1
prefix=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$prefix" "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1 \
  OMPI_MCA_hwloc_base_binding_policy=none
touch "$work/go"

cmake --install "$BUILD" --prefix "$prefix" >/dev/null
check "install puts mcmrun and mcmd in bin/" [ -x "$prefix/bin/mcmrun" -a -x "$prefix/bin/mcmd" ]
lib=$(find "$prefix" -name libmcm.so | head -1)
check "install puts libmcm.so under the prefix ($lib)" [ -n "$lib" ]

for tree in build install; do
  [ $tree = build ] && mcmrun="$BUILD/bin/mcmrun" || mcmrun="$prefix/bin/mcmrun"
  [ $tree = build ] && root="$BUILD" || root="$prefix"
  cmd=$("$mcmrun" --dry-run -np 2 "$BUILD/test/system/hold_app" "$work/go")
  check "$tree tree: the job preloads libmcm.so from $root" grep -q "LD_PRELOAD=$root/[^ ]*libmcm.so" <<<"$cmd"
  check "$tree tree: the job runs mcmd from $root/bin" grep -q "$root/bin/mcmd" <<<"$cmd"
  out=$("$mcmrun" --oversubscribe -np 2 "$BUILD/test/system/hold_app" "$work/go" 2>&1)
  # --intercepted reads the table compiled into the libmcm.so this mcmrun uses: every
  # function it says the shim wraps is defined there, and the ones it leaves alone are not.
  "$mcmrun" --intercepted >"$work/intercepted" 2>&1
  check "$tree tree: --intercepted lists MPI_Send as the engine's ($(grep -m1 '^MPI functions' "$work/intercepted"))" \
    grep -qE '^MPI_Send +p2p +engine +yes$' "$work/intercepted"
  lib=$(sed -n '1s/^MPI functions in \(.*\): [0-9]*$/\1/p' "$work/intercepted")
  nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u >"$work/defined"
  awk '/^MPI_/ && $3 != "not-wrapped" {print $1}' "$work/intercepted" | sort -u >"$work/wrapped"
  awk '/^MPI_/ && $3 == "not-wrapped" {print $1}' "$work/intercepted" | sort -u >"$work/left"
  check "$tree tree: every function it lists as wrapped ($(wc -l <"$work/wrapped")) is defined in $lib" \
    test -z "$(comm -23 "$work/wrapped" "$work/defined")"
  check "$tree tree: the ones it lists as left to Open MPI ($(wc -l <"$work/left")) are not" \
    test -s "$work/left" -a -z "$(comm -12 "$work/left" "$work/defined")"
  check "$tree tree: a job runs and sees 2 ranks (${out//$'\n'/ })" grep -q "world 2 ranks on 1 hosts" <<<"$out"
done

# A consumer project: find_package(mcm) from the prefix, an MPI program, and a ctest that
# runs it under mcm::mcmrun (the usage mcm-config.cmake documents).
mkdir -p "$work/consumer"
cat >"$work/consumer/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.25)
project(consumer C)
find_package(mcm ${WANTED} REQUIRED)
find_package(MPI REQUIRED COMPONENTS C)
add_executable(hello hello.c)
target_link_libraries(hello PRIVATE MPI::MPI_C)
enable_testing()
add_test(NAME hello COMMAND mcm::mcmrun --oversubscribe -np 2 $<TARGET_FILE:hello>)
get_target_property(mcmrun mcm::mcmrun LOCATION)
message(STATUS "consumer: mcm ${mcm_VERSION}, mcmrun at ${mcmrun}")
EOF
cat >"$work/consumer/hello.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) printf("consumer hello: %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
EOF
version=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$prefix"/lib*/cmake/mcm/mcm-config-version.cmake)
check "install puts mcm-config.cmake and a version file ($version) under lib/cmake/mcm" [ -n "$version" ]
configure() {  # configure WANTED_VERSION: the consumer, in a fresh build directory
  rm -rf "$work/consumer-build"
  cmake -S "$work/consumer" -B "$work/consumer-build" -DCMAKE_PREFIX_PATH="$prefix" \
    -DWANTED="$1" >"$work/configure.out" 2>&1
}
refuses() { ! configure "$1"; }
build_consumer() { cmake --build "$work/consumer-build" >"$work/build.out" 2>&1 || { cat "$work/build.out"; false; }; }
check "a consumer's find_package(mcm $version REQUIRED) finds the install" configure "$version"
check "...which imports mcmrun from the prefix, not the build tree" \
  grep -q "mcmrun at $prefix/bin/mcmrun" "$work/configure.out"
check "...and builds an MPI program beside it" build_consumer
ctest --test-dir "$work/consumer-build" --verbose >"$work/ctest.out" 2>&1
check "...whose ctest runs it under mcm::mcmrun ($(grep -o 'consumer hello.*' "$work/ctest.out"))" \
  grep -q "consumer hello: 2 ranks" "$work/ctest.out"
major=${version%%.*}
check "find_package(mcm $((major + 1)).0 REQUIRED) refuses this install" refuses "$((major + 1)).0"
check "...and names the version it found" grep -q "$version" "$work/configure.out"
finish
