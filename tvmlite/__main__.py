"""``python -m tvmlite <command> [options]``: the command line (tvmlite/cli)."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
