"""Entry point: `python -m agentjet_campaign` answers JSON-line requests on stdin/stdout (service.py)."""

from __future__ import annotations

import logging
import os
import sys


def main() -> int:
    # Keep stdout for protocol lines only: anything a library prints goes to stderr.
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    logging.basicConfig(
        stream=sys.stderr,
        level=os.environ.get("AGENTJET_CAMPAIGN_LOG", "WARNING").upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    from .service import serve

    try:
        serve(sys.stdin, out)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
