"""Loaded into every Python process of `bash tests/sanitize.sh` (it puts this directory on PYTHONPATH).

With g++, UBSan is its own runtime (libubsan.so) next to libasan.so, and the `__sanitizer_set_report_path` it calls
at start-up to apply UBSAN_OPTIONS's log_path binds to libasan's copy (the preloaded library wins): UBSan's reports
would go to stderr, which pytest captures and drops when the report kills the process. Calling libubsan's own copy
(dlsym on its handle) sends them to the log file, where the script looks for them.
"""
import os


def _ubsan_log_to_file():
    opts = dict(kv.split("=", 1) for kv in os.environ.get("UBSAN_OPTIONS", "").split(":") if "=" in kv)
    if "log_path" not in opts:
        return
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if "/libubsan.so" in line}
    if not libs:
        return
    import ctypes

    ctypes.CDLL(libs.pop()).__sanitizer_set_report_path(opts["log_path"].encode())


_ubsan_log_to_file()
