"""``agents inbox``: a small web app where people answer the questions of every run."""
