#!/usr/bin/env bash
# Builds the native driver shim: every src/main/c/shim/*.c -> OUT_DIR/libnicshim.so (the platform nicshim.c plus
# the card models that are present; see shim_internal.h). Only the nicshim_* functions of nicshim.h are exported
# (version script), so the card models' symbols cannot clash with anything the JVM loads. Afterwards it checks
# that every function declared in nicshim.h is exported, so Java's generated bindings find all of them.
# Usage: build-shim.sh GCC INCLUDE_DIR OUT_DIR
set -euo pipefail
gcc=${1:-gcc}
inc=${2:?include dir}
out=${3:?output dir}
here=$(cd "$(dirname "$0")" && pwd)
shopt -s nullglob
sources=("$here"/*.c)
if [ ${#sources[@]} -eq 0 ]; then
  echo "build-shim: no sources in $here" >&2
  exit 1
fi
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '{\n  global: nicshim_*;\n  local: *;\n};\n' >"$work/exports.map"
"$gcc" -std=c11 -D_GNU_SOURCE -O2 -g -fPIC -pthread -Wall -Wextra -Werror -shared \
  -I"$inc" -I"$here" -Wl,--version-script="$work/exports.map" -Wl,-z,defs \
  "${sources[@]}" -o "$work/libnicshim.so"
# Every function of the public header must be exported (a missing one would fail only at its first Java call).
missing=()
exported=$(nm -D --defined-only "$work/libnicshim.so" | awk '{print $3}')
for fn in $(grep -oE '\bnicshim_[a-z_]+\(' "$inc/nicshim.h" | tr -d '(' | sort -u); do
  grep -qx "$fn" <<<"$exported" || missing+=("$fn")
done
if [ ${#missing[@]} -ne 0 ]; then
  echo "build-shim: libnicshim.so does not export: ${missing[*]}" >&2
  exit 1
fi
# Replace atomically: a JVM that has the old library mapped keeps its copy.
mv -f "$work/libnicshim.so" "$out/libnicshim.so"
echo "build-shim: $out/libnicshim.so from ${#sources[@]} source(s): $(cd "$here" && ls *.c | tr '\n' ' ')"
