#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Every source file says its licence in its first lines (the SPDX line), so
# a file copied out of the tree still carries it; both licence texts are at
# the top of the tree.
# Usage: check_spdx.sh SOURCE_DIR
set -u
cd "$1" || exit 1
tag="SPDX-License-Identifier: MIT OR Apache-2.0"
fail=0
for f in LICENSE-MIT LICENSE-APACHE; do
    [ -s "$f" ] || { echo "check_spdx: $f is missing"; fail=1; }
done
if git rev-parse --git-dir >/dev/null 2>&1; then
    files=$(git ls-files '*.c' '*.h' '*.def' '*.rs' '*.py' '*.pyi' '*.sh' '*.cmake' \
            '*CMakeLists.txt' '*.toml' '*.[137]' '*.list')
else # a release tarball: no git
    files=$(find . -type f \( -name '*.[ch]' -o -name '*.def' -o -name '*.rs' -o -name '*.py' \
            -o -name '*.pyi' -o -name '*.sh' -o -name '*.cmake' -o -name CMakeLists.txt \
            -o -name '*.toml' -o -name '*.[137]' -o -name '*.list' \) -not -path './build*' \
            -not -path '*/target/*')
fi
n=0
for f in $files; do
    [ -L "$f" ] && continue
    n=$((n + 1))
    head -n 5 "$f" | grep -qF "$tag" || { echo "check_spdx: $f has no '$tag' line"; fail=1; }
done
[ $fail -eq 0 ] && echo "check_spdx: $n files carry the SPDX line"
exit $fail
