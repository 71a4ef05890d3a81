"""Learning baselines for the kingdoms env. They need the `train` extra (`pip install ./python[train]`:
torch, CPU is enough); `import gcb_env` never imports them."""
