"""``python worker.py``: a worker for the agent workflows from a checkout (``--verbose`` for
library logs); installed, ``python -m agent_interrupts.worker``. What it does and the settings
it reads: ``app/worker_main.py``."""

from agent_interrupts.app.worker_main import run

if __name__ == "__main__":
    run()
