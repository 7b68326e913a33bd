# shellcheck shell=bash
# Source this file. malloc_library NAME prints the shared object to LD_PRELOAD for
# an allocator (nothing for glibc, the default), or fails when it is not installed.
# The packages: libtcmalloc-minimal4, libjemalloc2, libmimalloc2.0 (scripts/setup.sh).
MALLOCS="glibc tcmalloc jemalloc mimalloc"
malloc_library() {
  local dir file
  dir=/usr/lib/$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
  case "$1" in
    glibc) return 0 ;;
    tcmalloc) file=$dir/libtcmalloc_minimal.so.4 ;;
    jemalloc) file=$dir/libjemalloc.so.2 ;;
    mimalloc) file=$dir/libmimalloc.so.2 ;;
    *) echo "unknown malloc '$1' (known: $MALLOCS)" >&2; return 2 ;;
  esac
  [ -e "$file" ] || { echo "$1 is not installed ($file missing)" >&2; return 1; }
  echo "$file"
}
