"""``python -m salience`` runs the CLI."""

from salience.cli import main

if __name__ == "__main__":
    main()
