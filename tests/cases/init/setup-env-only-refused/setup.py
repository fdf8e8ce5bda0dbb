raise SystemExit("setup.py must not run: its setup-env is refused")
