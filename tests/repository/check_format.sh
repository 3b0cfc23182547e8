#!/bin/sh
# Checks that every tracked C++ file is laid out as .clang-format says (CTest
# repository.format). Fix with: git ls-files '*.cpp' '*.h' | xargs clang-format -i
# Exit 77 (skipped) when clang-format or git is missing, unless
# ROUTELAB_REQUIRE_INTEROP_TOOLS=1 (scripts/setup.sh test sets it: CI never skips).
root=${1:-.}
cd "$root" || exit 2
tool=$(command -v clang-format || command -v clang-format-14)
if [ -z "$tool" ] || ! command -v git >/dev/null 2>&1 || ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo "clang-format or a git checkout not available" >&2
  [ "${ROUTELAB_REQUIRE_INTEROP_TOOLS:-0}" = 1 ] && exit 1
  exit 77
fi
files=$(git ls-files '*.cpp' '*.h')
# shellcheck disable=SC2086
if ! "$tool" --dry-run -Werror $files; then
  echo "format check failed: run  git ls-files '*.cpp' '*.h' | xargs clang-format -i" >&2
  exit 1
fi
echo "format ok: $(echo "$files" | wc -l) files"
