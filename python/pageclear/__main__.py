# SPDX-License-Identifier: MIT OR Apache-2.0
"""``python -m pageclear``: commands around the package (``bench``)."""

from __future__ import annotations

import sys

from .bench import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
