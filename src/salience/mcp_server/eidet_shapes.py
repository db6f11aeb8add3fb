"""eidet's answers for consolidation, maintenance and packs: the same JSON from its MCP tools
and from its REST routes (``server/compat_eidet_upkeep.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from salience.models import ConsolidationReport, MaintenanceReport, PackImport, PackManifest


def consolidated(report: ConsolidationReport) -> dict[str, Any]:
    """``eidet_consolidate``'s answer: candidates, insights created and boosted."""
    return {
        "candidates": report.candidates,
        "insightsCreated": sum(g.action == "create" for g in report.groups),
        "insightsBoosted": sum(g.action == "boost" for g in report.groups),
        "dryRun": report.dry_run,
    }


def maintained(report: MaintenanceReport) -> dict[str, Any]:
    """``eidet_maintenance``'s report: how many decayed, were forgotten, orphans cleaned."""
    return {
        "decayed": len(report.decayed),
        "forgotten": len(report.forgotten),
        "orphans": sum(report.orphans.values()),
        "dryRun": report.dry_run,
    }


def exported(manifest: PackManifest, path: Path | None) -> dict[str, Any]:
    """``eidet_pack_export``'s answer: the pack's id, name, version, file and size."""
    named = manifest.identity
    return {
        "pack": None if named is None else named.id,
        "name": None if named is None else named.name,
        "version": None if named is None else named.version,
        "path": None if path is None else str(path),
        "memories": manifest.records,
    }


def imported(done: PackImport, path: Path | None) -> dict[str, Any]:
    """``eidet_pack_import``'s answer: the pack's id and version as its manifest names them
    (a pack exported without them: its file's name, and no version), and the layer."""
    named = done.manifest.identity
    fallback = None if path is None else path.stem
    return {
        "imported": done.result.created,
        "pack": fallback if named is None else named.id,
        "version": None if named is None else named.version,
        "layer": None if done.mount is None else done.mount.name,
    }
