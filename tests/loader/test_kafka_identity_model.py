"""When a run may go on against the Kafka cluster it finds (no services)."""

from __future__ import annotations

from loader.planning.commit_protocol import Manifest
from loader.planning.kafka_identity import cluster_change, comparable_topic_ids


def test_the_same_cluster_or_a_state_without_one_goes_on() -> None:
    assert cluster_change("A", "A", None, "k:9092") is None
    assert cluster_change(None, "A", None, "k:9092") is None  # saved before cluster ids were kept


def test_another_cluster_stops_the_run_naming_both_ids_and_the_choices() -> None:
    message = cluster_change("A", "B", None, "dr-kafka:9092")
    assert message is not None
    assert "Kafka at dr-kafka:9092 is cluster B, but the saved offsets were read from cluster A" in message
    assert "--accept-cluster B" in message and "another --database" in message


def test_only_the_accepted_cluster_id_is_accepted() -> None:
    assert cluster_change("A", "B", "B", "k:9092") is None
    assert cluster_change("A", "C", "B", "k:9092") is not None  # a flag left in a crontab accepts no other


def test_topic_ids_are_compared_only_on_the_cluster_that_gave_them() -> None:
    saved = Manifest(3, "r", {("t", 0): 5}, cluster_id="A", topic_ids={"t": "id-1"})
    assert comparable_topic_ids(saved, "A") == {"t": "id-1"}
    assert comparable_topic_ids(saved, "B") == {}  # a mirror's topics have ids of their own
