"""``python client.py ...``: the ``agents`` command from a checkout (the commands are in
``app/cli/``; the SDK is ``agent_interrupts``)."""

from agent_interrupts.app.cli.main import console_script

if __name__ == "__main__":
    console_script()
