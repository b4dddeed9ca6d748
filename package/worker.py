"""``python -m agent_interrupts.worker``: a worker for the agent workflows (``--verbose`` for
library logs); from a checkout, ``python worker.py``. What it does: ``app/worker_main.py``."""

from agent_interrupts.app.worker_main import run

if __name__ == "__main__":
    run()
