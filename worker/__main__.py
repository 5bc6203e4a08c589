"""``python -m rath.worker``: run a Rath worker (see ``rath worker --help``)."""

from rath.worker.main import main

if __name__ == "__main__":
    main()
