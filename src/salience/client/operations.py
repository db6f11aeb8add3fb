"""The client's verbs for running a store: its jobs, erasing a user, and an evaluation's
probes (what :class:`~salience.engine.memory.Memory` answers locally, asked of a server)."""

from __future__ import annotations

import builtins
from typing import Any

from salience.client.transport import Transport
from salience.models import Job, Probe
from salience.wire import decode as wire
from salience.wire.record import probe_of


class Operations(Transport):
    """Jobs, erasure and probes over HTTP."""

    def job(self, job_id: str) -> Job:
        """The job with this id as it stands (one of another user is not found)."""
        return wire.job(self._json("GET", f"/v1/jobs/{job_id}"))

    def jobs(self, *, limit: int = 50) -> builtins.list[Job]:
        """The caller's jobs, newest first."""
        return [wire.job(j) for j in self._json("GET", "/v1/jobs", params={"limit": limit})]

    def cancel_job(self, job_id: str) -> Job:
        """Ask a job to stop (a finished one is a conflict)."""
        return wire.job(self._json("DELETE", f"/v1/jobs/{job_id}"))

    def erase_user(self, user: str) -> dict[str, Any]:
        """Erase everything ``user`` ever stored and scrub the server's store (an admin key,
        or a local server); the receipt: counts, never a text."""
        receipt: dict[str, Any] = self._json("POST", "/v1/erase", json={"user": user})
        return receipt

    def probes(self, *, per_kind: int = 50, entities: bool = False) -> builtins.list[Probe]:
        """The probes an evaluation of the caller's store would ask."""
        params = {"per_kind": per_kind, "entities": entities}
        return [probe_of(p) for p in self._json("GET", "/v1/eval/probes", params=params)]
