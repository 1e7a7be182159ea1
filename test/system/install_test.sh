#!/usr/bin/env bash
# Checks that mcmrun finds libmcm.so and mcmd by itself both in the build tree and after
# `cmake --install` to a fresh prefix, by running a real (single-host) job from each.
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
  check "$tree tree: a job runs and sees 2 ranks (${out//$'\n'/ })" grep -q "world 2 ranks on 1 hosts" <<<"$out"
done
finish
