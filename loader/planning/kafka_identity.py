"""Is this the Kafka the saved offsets came from?

Offsets live in the warehouse's state, not in Kafka, so they mean something only on the cluster they were
read from. Pointed at another cluster (a disaster-recovery failover, a staging cluster, a restored
broker) with topics of the same names, saved offsets would be compared with another log's and records
skipped or loaded again without a word. The run therefore keeps Kafka's cluster id with its offsets and
refuses another cluster unless told, by its id, to accept it.
"""

from __future__ import annotations

from loader.planning.commit_protocol import Manifest


class ClusterChanged(RuntimeError):
    """Kafka is another cluster than the one the saved offsets were read from; nothing was read."""


def cluster_change(saved: str | None, current: str, accepted: str | None, bootstrap: str) -> str | None:
    """Why the run must not go on against `current` (None: it may).

    A state without a cluster id (saved by a version that did not keep it, or never committed) adopts
    the current one. `accepted` is the id the operator named with `--accept-cluster`.
    """
    if saved is None or saved == current or accepted == current:
        return None
    return (
        f"Kafka at {bootstrap} is cluster {current}, but the saved offsets were read from cluster {saved}. "
        "Nothing was read. If this cluster keeps the same offsets for the same records (a mirror that "
        f"preserves offsets), continue from the saved offsets with --accept-cluster {current}; to load it "
        "from its start into tables of its own, run with another --database (docs/loader.md, 'Failover "
        "and recreated topics')."
    )


def comparable_topic_ids(saved: Manifest, current_cluster: str) -> dict[str, str]:
    """The saved topic ids, when they can be compared with this cluster's: another cluster (accepted as
    a mirror) gives its topics ids of its own, so there only the offsets can tell a recreated topic."""
    return saved.topic_ids if saved.cluster_id in (None, current_cluster) else {}
