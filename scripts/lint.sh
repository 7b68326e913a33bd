#!/usr/bin/env bash
# The project's linters, as .ci/run's `lint` step runs them: shellcheck on every
# shell script (.shellcheckrc), flake8 on every Python file (.flake8), and
# clang-format on every C++ file (.clang-format: it must change nothing). Only files
# git tracks are read; nothing is written. Installs shellcheck, flake8 and
# clang-format first when they are missing (scripts/setup.sh).
#
#   scripts/lint.sh          all three
#   scripts/lint.sh --fix    rewrites the C++ with clang-format, then checks all three
# Exit status: 0 clean; 1 a finding (each printed as FILE:LINE: ...); 2 a bad argument.
# To format one file: clang-format -i FILE.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. scripts/lib/script_flags.sh
fix=0
parse_flags "$0" "--fix!" "$@"
for tool in shellcheck flake8 clang-format; do
  command -v "$tool" >/dev/null || { scripts/setup.sh all >/dev/null || exit 1; break; }
done

mapfile -t shell < <(git ls-files '*.sh' .ci/run)
mapfile -t python < <(git ls-files '*.py')
mapfile -t cpp < <(git ls-files '*.cc' '*.h')
[ "$fix" = 1 ] && clang-format -i "${cpp[@]}"
failed=()
shellcheck -f gcc "${shell[@]}" || failed+=(shellcheck)
/usr/bin/python3 -m flake8 "${python[@]}" || failed+=(flake8)
clang-format --dry-run -Werror "${cpp[@]}" 2>&1 | grep -E '^[^ ].*: (error|warning):' || true
clang-format --dry-run -Werror "${cpp[@]}" >/dev/null 2>&1 || failed+=("clang-format (scripts/lint.sh --fix rewrites the files)")
if [ ${#failed[@]} -gt 0 ]; then
  echo "lint: findings above from: ${failed[*]}"
  exit 1
fi
echo "lint: ${#shell[@]} shell, ${#python[@]} Python and ${#cpp[@]} C++ files clean"
