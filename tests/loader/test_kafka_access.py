"""Refusals told apart from silence, in librdkafka's and the Java client's own words (pure; messages as the
clients print them against the secured broker of scripts/kafka)."""

from __future__ import annotations

import pytest

from loader.reading.kafka_access import java_refusal, refusal
from loader.reading.kafka_security import KafkaSecurity
from pipeline_client.secret_values import Secret

SCRAM = KafkaSecurity(
    "SASL_SSL", "SCRAM-SHA-512", "loader", Secret("pw", "file /etc/kafka.pw"), ssl_ca_location="/etc/ca.pem"
)
MTLS = KafkaSecurity(
    "SSL", ssl_ca_location="/etc/ca.pem", ssl_certificate_location="/c", ssl_key_location="/k"
)


@pytest.mark.parametrize(
    ("code", "message", "security", "expected"),
    [
        (
            "_AUTHENTICATION",
            "sasl_ssl://127.0.0.1:9093/bootstrap: SASL authentication error: Authentication failed during "
            "authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512 (after 326ms in "
            "state AUTH_REQ)",
            SCRAM,
            "authentication failed (SASL authentication error: Authentication failed during authentication "
            "due to invalid credentials with SASL mechanism SCRAM-SHA-512); check sasl_username 'loader' and "
            "its password (file /etc/kafka.pw)",
        ),
        (
            "_SSL",
            "sasl_ssl://127.0.0.1:9093/bootstrap: SSL handshake failed: error:0A000086:SSL routines::"
            "certificate verify failed: broker certificate could not be verified (after 7ms in state "
            "SSL_HANDSHAKE)",
            SCRAM,
            "TLS failed (SSL handshake failed: error:0A000086:SSL routines::certificate verify "
            "failed: broker "
            "certificate could not be verified); the broker's certificate is not signed by a CA in "
            "/etc/ca.pem",
        ),
        (
            "_TRANSPORT",
            "ssl://127.0.0.1:9094/bootstrap: Receive failed: error:0A000412:SSL routines::ssl/tls alert bad "
            "certificate: SSL alert number 42 (after 4ms in state APIVERSION_QUERY)",
            MTLS,
            "TLS failed (Receive failed: error:0A000412:SSL routines::ssl/tls alert bad "
            "certificate: SSL alert "
            "number 42); the broker did not accept the client certificate (ssl_certificate_location)",
        ),
        (
            "_TRANSPORT",
            "ssl://127.0.0.1:9092/bootstrap: SSL handshake failed: Disconnected: SSL connection closed by "
            "peer: connecting to a PLAINTEXT broker listener? (after 4ms in state SSL_HANDSHAKE)",
            MTLS,
            "TLS failed (SSL handshake failed: Disconnected: SSL connection closed by peer: connecting to a "
            "PLAINTEXT broker listener?); that listener does not speak TLS: check security_protocol "
            "and the port",
        ),
        (
            "TOPIC_AUTHORIZATION_FAILED",
            "Broker: Topic authorization failed",
            SCRAM,
            "authorization refused (TOPIC_AUTHORIZATION_FAILED); the user needs ACLs to describe "
            "and read the "
            "topics",
        ),
    ],
)
def test_refusals_say_which_kind_and_what_to_check(
    code: str, message: str, security: KafkaSecurity, expected: str
) -> None:
    assert refusal(code, message, security) == expected


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("_TRANSPORT", "127.0.0.1:9092/bootstrap: Connect to ipv4#127.0.0.1:9092 failed: Connection refused"),
        ("_ALL_BROKERS_DOWN", "1/1 brokers are down"),
        ("_TIMED_OUT", "Failed to get metadata: Local: Timed out"),
    ],
)
def test_a_broker_that_does_not_answer_is_no_refusal(code: str, message: str) -> None:
    assert refusal(code, message, SCRAM) is None


def test_java_refusals_are_found_in_sparks_error_text() -> None:
    py4j = (
        "An error occurred while calling o123.collectToPython.\n"
        ": org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 in stage 9.0 failed 1 "
        "times, most recent failure: Lost task 0.0 in stage 9.0 (TID 6) (127.0.0.1 executor driver): "
        "org.apache.kafka.common.errors.TopicAuthorizationException: Not authorized to access topics: "
        "[acl-test]\n\tat org.apache.kafka.clients..."
    )
    assert java_refusal(py4j) == (
        "Kafka refused Spark's Kafka source: authorization refused (TopicAuthorizationException: Not "
        "authorized to access topics: [acl-test])"
    )
    sasl = ": org.apache.kafka.common.errors.SaslAuthenticationException: Authentication failed during"
    assert java_refusal(sasl) == (
        "Kafka refused Spark's Kafka source: authentication failed (SaslAuthenticationException: "
        "Authentication failed during)"
    )
    assert java_refusal("org.apache.kafka.common.errors.TimeoutException: Timed out waiting") is None
