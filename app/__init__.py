"""The `agents` CLI's parts and everything around a worker and a client: settings from the
environment, connecting to Temporal, the local stack (dev server, UI, worker), the worker's
wiring, the supervisor SDK, following, answering and rendering runs, reading run chains,
stuck runs, the training-data export, stats and Prometheus metrics, tracing, team files, and
the web inbox (``app/inbox/``). docs/layout.md names every module."""
