#!/bin/sh
# install_test.sh BUILD_DIR SOURCE_DIR: "cmake --install" into a temporary prefix, then build a
# small program against the installed autoopt three ways -- find_package(autoopt), pkg-config
# and the installed autoopt-mpicc -- and run each; all must report autoopt active.  The
# installed Python tools must find their package and print their manuals.
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu
build=$1 src=$2
tmp=$(mktemp -d /tmp/aot-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
for t in autoopt-bench autoopt-netcluster autoopt-validate autoopt-maps autoopt-trace; do
    "$tmp/prefix/bin/$t" --help | grep -q "^    $t - " || { echo "installed $t --help: FAIL"; exit 1; }
done
echo "installed Python tools: ok"
mkdir "$tmp/proj"
cp "$src/consumer-CMakeLists.txt" "$tmp/proj/CMakeLists.txt"
cp "$src/consumer.c" "$tmp/proj/consumer.c"
cmake -S "$tmp/proj" -B "$tmp/proj/b" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
      -DMPI_C_COMPILER=mpicc.mpich >/dev/null
cmake --build "$tmp/proj/b" >/dev/null
mpiexec.mpich -n 2 "$tmp/proj/b/c" | grep -q "active=1 injected=1 y=2"
echo "find_package(autoopt): ok"
"$tmp/prefix/bin/autoopt-mpicc" -o "$tmp/c2" "$tmp/proj/consumer.c"
mpiexec.mpich -n 2 "$tmp/c2" | grep -q "active=1 injected=1 y=2"
echo "installed autoopt-mpicc: ok"
flags=$(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags --libs autoopt)
# shellcheck disable=SC2086
mpicc.mpich -I"$tmp/prefix/include/autoopt/inject" -o "$tmp/c3" "$tmp/proj/consumer.c" $flags \
    -Wl,-rpath,"$tmp/prefix/lib"
mpiexec.mpich -n 2 "$tmp/c3" | grep -q "active=1 injected=1 y=2"
echo "pkg-config autoopt: ok"
