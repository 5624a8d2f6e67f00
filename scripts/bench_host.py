# SPDX-License-Identifier: MIT OR Apache-2.0
"""What the benchmark scripts beside this one (preload_calls.py,
preload_states.py) share: the CPU name their tables are headed with, and
the check of the wrappers they run each process under."""
import shutil


def cpu_name():
    """The CPU's model name as /proc/cpuinfo gives it, or "unknown CPU"."""
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith(("model name", "Model name")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def check_wrappers(ap, commands):
    """Refuse (argparse's error, exit 2) a --glibc command that is not one,
    before the first run: a wrong path found only at the second C library
    would cost the minutes of the first one's runs."""
    for g in commands:
        if shutil.which(g) is None:
            ap.error(f"--glibc {g}: no such command")
