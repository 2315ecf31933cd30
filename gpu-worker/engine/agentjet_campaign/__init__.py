"""The campaign optimiser process: Optuna's ask/tell over JSON lines (see service.py)."""
