#!/bin/sh
# Checks that the runs under a checking tool launched every kernel of the build: the kernels the
# build holds (listed from the build itself, never by hand) against the kernel log those runs
# wrote ($HETCODEC_KERNEL_LOG, backends/backend_util.h). Fails naming each kernel no run
# launched; exits 77 (CTest: skipped) when the runs did not happen (no log: no emulator, no CUDA
# device).
# usage: kernel_coverage.sh opencl HETCODEC_CLI DEVICE LOG...
#        kernel_coverage.sh cuda LIBRARY CUOBJDUMP LOG...
mode=$1 what=$2 tool=$3
shift 3
found=0
for log in "$@"; do [ -s "$log" ] && found=1; done
if [ $found -eq 0 ]; then
  echo "no kernel log ($*): the runs it checks were skipped"
  exit 77
fi
list=$(mktemp) all=$(mktemp) ran=$(mktemp)
trap 'rm -f "$list" "$all" "$ran"' EXIT
# The logged names, from every log there is.
for log in "$@"; do [ -s "$log" ] && cat -- "$log"; done | sort -u > "$ran"
case $mode in
  opencl)
    # The kernels of every program the device builds (the listing's own status checked: sh
    # has no pipefail).
    "$what" -d "$tool" devices --kernels > "$list" || exit 1
    cut -d' ' -f2 < "$list" | sort -u > "$all"
    ;;
  cuda)
    # The entry points (STO_ENTRY) of every cubin of the library, by mangled name, as the log
    # has them (cudaFuncGetName).
    "$tool" -symbols "$what" > "$list" || exit 1
    awk '/STO_ENTRY/ {print $NF}' < "$list" | sort -u > "$all"
    ;;
  *)
    echo "kernel_coverage.sh: unknown mode '$mode'" >&2
    exit 2
    ;;
esac
total=$(wc -l < "$all")
if [ "$total" -eq 0 ]; then
  echo "no kernels listed for $what ($mode): the listing failed"
  exit 1
fi
missing=$(comm -23 "$all" "$ran")
echo "$mode: $((total - $(printf '%s' "$missing" | grep -c .))) of $total kernels launched ($*)"
if [ -n "$missing" ]; then
  echo "never launched under the checks:"
  printf '%s\n' "$missing" | sed 's/^/  /'
  exit 1
fi
