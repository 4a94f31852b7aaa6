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
logs=
for log in "$@"; do [ -s "$log" ] && logs="$logs $log"; done
if [ -z "$logs" ]; then
  echo "no kernel log ($*): the runs it checks were skipped"
  exit 77
fi
all=$(mktemp) ran=$(mktemp)
trap 'rm -f "$all" "$ran"' EXIT
case $mode in
  opencl)
    # The kernels of every program the device builds.
    "$what" -d "$tool" devices --kernels | cut -d' ' -f2 | sort -u > "$all" || exit 1
    cat $logs | sort -u > "$ran"
    ;;
  cuda)
    # The entry points (STO_ENTRY) of every cubin of the library, and the logged names, both
    # demangled and without their parameters, so that they compare whatever form each has.
    names() { c++filt | sed -e 's/^void //' -e 's/(.*$//' | sort -u; }
    "$tool" -symbols "$what" | awk '/STO_ENTRY/ {print $NF}' | names > "$all" || exit 1
    cat $logs | names > "$ran"
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
echo "$mode: $((total - $(printf '%s' "$missing" | grep -c .))) of $total kernels launched ($logs )"
if [ -n "$missing" ]; then
  echo "never launched under the checks:"
  printf '%s\n' "$missing" | sed 's/^/  /'
  exit 1
fi
