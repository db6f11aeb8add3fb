#!/usr/bin/env bash
# `make demo`: a short, real session of the salience CLI against $SALIENCE_HOME.
set -euo pipefail
: "${SALIENCE_HOME:?set SALIENCE_HOME}"
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
id_of() { python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'; }

echo "salience demo — store: $SALIENCE_HOME/salience.db"

say salience remember "The API server listens on port 8080 in staging" --tag project:api --importance 0.8
salience remember "The API server listens on port 8080 in staging" --tag project:api --importance 0.8

say 'old=$(salience remember "Deploys go through Jenkins" --type decision --json | id_of)'
old=$(salience remember "Deploys go through Jenkins" --type decision --json | id_of)
echo "old=$old"

say 'new=$(salience supersede "$old" "Deploys go through GitHub Actions with a matrix build" --json | id_of)'
new=$(salience supersede "$old" "Deploys go through GitHub Actions with a matrix build" --json | id_of)
echo "new=$new"

say salience recall "how do we deploy?"
salience recall "how do we deploy?"

# No word in common with the memory: the bundled embedding model finds it.
say salience recall "how are releases built" --explain
salience recall "how are releases built" --explain

say salience history "$new"
salience history "$new"

say salience list --limit 5
salience list --limit 5

say salience stats
salience stats
