#!/usr/bin/env bash
# Build a small program against an installed pageclear through pkg-config,
# once shared and once static, and run both.
set -euo pipefail
prefix="$1"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib/x86_64-linux-gnu/pkgconfig:${PKG_CONFIG_PATH:-}"
command -v pkg-config >/dev/null || { echo "pkg-config missing"; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/use.c" <<'C'
#include <pageclear.h>
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    size_t n = 3 << 20;
    unsigned char *p = malloc(n + 2);
    for (size_t i = 0; i < n + 2; i++) p[i] = 0xAA;
    if (pc_clear(p + 1, n) != 0) return 1;
    for (size_t i = 1; i <= n; i++) if (p[i]) return 2;
    if (p[0] != 0xAA || p[n + 1] != 0xAA) return 3;
    printf("installed pageclear %s clears with %s\n", pc_version(), pc_selected(n));
    free(p);
    return 0;
}
C
libdir="$(pkg-config --variable=libdir pageclear)"
# shellcheck disable=SC2046
cc -Wall -Wextra -Werror "$tmp/use.c" -o "$tmp/use_shared" $(pkg-config --cflags --libs pageclear) -Wl,-rpath,"$libdir"
"$tmp/use_shared"
# shellcheck disable=SC2046
cc -Wall -Wextra -Werror "$tmp/use.c" -o "$tmp/use_static" $(pkg-config --cflags pageclear) "$libdir/libpageclear.a" -lpthread
"$tmp/use_static"
