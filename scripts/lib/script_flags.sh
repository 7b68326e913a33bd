# shellcheck shell=bash
# Source this file. The command-line loop of a script that takes --flags
# (bench/matrix.sh, scripts/malloc_swap.sh), written once: each flag sets the shell
# variable of its own name, so a script lists its flags and gives their defaults. And
# the check of a script whose arguments are positional (a build directory, seconds).
# A script calls either first, before it installs, builds, starts or deletes anything.
# Safe under `set -euo pipefail`.
#
#   parse_flags SCRIPT "FLAG..." ARGS...
#       reads ARGS against the FLAG words: "--name" takes a value (the next argument,
#       not empty) into the variable `name` (a dash in the name becomes `_`);
#       "--name!" is a switch that sets `name=1`. -h or --help prints SCRIPT's opening
#       comment (its usage) and exits 0; any other argument, or a flag without its
#       value, exits 2 with a message naming SCRIPT.
#       Example: short=0 out=""; parse_flags "$0" "--short! --out" "$@"
#   parse_positionals SCRIPT ARGS...
#       for a script that takes no --flags: -h or --help prints SCRIPT's opening
#       comment and exits 0; any other argument starting with `-` exits 2 naming it
#       (without this, `--help` would be taken as a build directory or a number).
#       Example: parse_positionals "$0" "$@"; build=${1:-build}
#   script_usage SCRIPT
#       prints SCRIPT's opening comment block without the leading "# ".

script_usage() {
  sed -n '2,${/^#/!q;s/^# \{0,1\}//;p}' "$1"
}

parse_flags() {
  local script=$1 known=" $2 " name flag
  name=$(basename "$1")
  shift 2
  while [ $# -gt 0 ]; do
    flag=$1
    case $known in
      *" $flag! "*)
        printf -v "$(_flag_variable "$flag")" 1
        shift ;;
      *" $flag "*)
        [ -n "${2:-}" ] || { echo "$name: $flag needs a value" >&2; exit 2; }
        printf -v "$(_flag_variable "$flag")" %s "$2"
        shift 2 ;;
      *)
        case $flag in -h|--help) script_usage "$script"; exit 0 ;; esac
        echo "$name: unknown argument '$flag' (see --help)" >&2
        exit 2 ;;
    esac
  done
}

parse_positionals() {
  local script=$1 arg
  shift
  for arg in "$@"; do
    case $arg in
      -h|--help) script_usage "$script"; exit 0 ;;
      -*) echo "$(basename "$script"): unknown argument '$arg' (see --help)" >&2; exit 2 ;;
    esac
  done
}

_flag_variable() {  # --some-name -> some_name
  local variable=${1#--}
  echo "${variable//-/_}"
}
