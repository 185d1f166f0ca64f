"""Whether Kafka lets the loader in: a refusal (authentication, TLS, authorization) stops the run at once,
named as such, instead of looking like a broker that does not answer.

librdkafka retries a refused connection until the request's timeout and then reports only a transport
failure; the reason (a SASL authentication error, a certificate that does not verify, a client certificate
the broker rejects) reaches the application through the error callback. So the first request is made in
short slices, the callback served between them, and the first refusal ends the wait. Spark's Kafka source
(the Java client) fails at once on a refusal; its exception is recognised in the error text.
"""

from __future__ import annotations

import re
import time
from collections.abc import Collection, Iterable

from confluent_kafka import KafkaError, KafkaException, TopicCollection
from confluent_kafka.admin import AclOperation, AdminClient, ClusterMetadata

from loader.reading.kafka_security import KafkaSecurity

SLICE_S = 0.5  # the first wait for metadata; each next one twice as long, up to MAX_SLICE_S
MAX_SLICE_S = 8.0
_JAVA_REFUSALS = {
    "SaslAuthenticationException": "authentication failed",
    "AuthenticationException": "authentication failed",
    "SslAuthenticationException": "TLS failed",
    "TopicAuthorizationException": "authorization refused",
    "GroupAuthorizationException": "authorization refused",
    "ClusterAuthorizationException": "authorization refused",
}
_JAVA_EXCEPTION = re.compile(r"org\.apache\.kafka\.common\.errors\.(\w+): ([^\n]*)")


class KafkaRefused(RuntimeError):
    """The brokers answered and refused the loader; nothing was loaded and no offset moved."""


def refusal(code: str, message: str, security: KafkaSecurity) -> str | None:
    """What a librdkafka error says about access, with what to check; None when it is not a refusal."""
    if code == "_AUTHENTICATION":
        return f"authentication failed ({_detail(message)}); check {_login(security)}"
    if code == "_SSL" or (code == "_TRANSPORT" and "SSL" in message):
        return f"TLS failed ({_detail(message)}); {_tls_hint(message, security)}"
    if code.endswith("_AUTHORIZATION_FAILED"):
        return f"authorization refused ({code}); the user needs ACLs to describe and read the topics"
    return None


def java_refusal(error_text: str) -> str | None:
    """A refusal named in an error from Spark's Kafka source (a Java stack trace), or None."""
    for name, message in _JAVA_EXCEPTION.findall(error_text):
        if name in _JAVA_REFUSALS:
            detail = f"{name}: {message.strip()[:300]}"
            return f"Kafka refused Spark's Kafka source: {_JAVA_REFUSALS[name]} ({detail})"
    return None


class RefusalWatch:
    """librdkafka's error callback: keeps the first refusal it reports."""

    def __init__(self, security: KafkaSecurity) -> None:
        self.security = security
        self.found: str | None = None

    def __call__(self, error: KafkaError) -> None:
        if self.found is None:
            self.found = refusal(error.name(), error.str(), self.security)


def cluster_metadata(
    config: dict[str, object], security: KafkaSecurity, timeout_s: float
) -> tuple[AdminClient, ClusterMetadata]:
    """An admin client and the cluster's metadata; raises ``KafkaRefused`` as soon as a broker refuses the
    client, and ``KafkaException`` when none answered within ``timeout_s``."""
    watch = RefusalWatch(security)
    admin = AdminClient({**config, "error_cb": watch})
    deadline = time.monotonic() + timeout_s
    slice_s = SLICE_S
    while True:
        remaining = deadline - time.monotonic()
        try:
            return admin, admin.list_topics(timeout=max(0.05, min(slice_s, remaining)))
        except KafkaException as exc:
            admin.poll(0)
            if watch.found:
                where = config["bootstrap.servers"]
                raise KafkaRefused(f"Kafka at {where} refused the loader: {watch.found}") from exc
            if remaining <= slice_s:
                raise
            slice_s = min(slice_s * 2, MAX_SLICE_S)  # a slow but willing cluster gets longer waits


def require_read_access(
    admin: AdminClient,
    bootstrap_servers: str,
    security: KafkaSecurity,
    topics: Iterable[str],
    timeout_s: float,
    optional: Collection[str] = (),
) -> list[str]:
    """Raises ``KafkaRefused`` naming the topics the loader's user may not read, before anything is read.
    Topics in `optional` (ones a run only looks into) do not stop it: those it may not read are returned.
    `admin` is the run's client of the brokers at `bootstrap_servers`."""
    unreadable = unreadable_topics(admin, [*topics, *optional], timeout_s)
    refused = [t for t in unreadable if t not in optional]
    if refused:
        who = f"user {security.sasl_username!r}" if security.sasl_username else "the loader's principal"
        shown = ", ".join(refused[:10]) + (f" and {len(refused) - 10} more" if len(refused) > 10 else "")
        raise KafkaRefused(
            f"Kafka at {bootstrap_servers} refused the loader: authorization refused: {who} may not read "
            f"topic(s) {shown}; grant it READ and DESCRIBE ACLs on them (or leave them out: --exclude-topics)"
        )
    return [t for t in unreadable if t in optional]


def unreadable_topics(admin: AdminClient, topics: Iterable[str], timeout_s: float) -> list[str]:
    """The topics the loader's user may see but not read (no READ ACL).

    Brokers without an authorizer grant everything; a broker that cannot say (too old, or not answering in
    time) is taken to allow, and Spark's read then names a refusal.
    """
    names = sorted(topics)
    if not names:
        return []
    futures = admin.describe_topics(
        TopicCollection(names), request_timeout=timeout_s, include_authorized_operations=True
    )
    refused = []
    for name in names:
        try:
            description = futures[name].result()
        except KafkaException as exc:
            if str(exc.args[0].name()).endswith("_AUTHORIZATION_FAILED"):
                refused.append(name)
            continue
        allowed = description.authorized_operations
        if allowed is not None and not {AclOperation.READ, AclOperation.ALL} & set(allowed):
            refused.append(name)
    return refused


def _detail(message: str) -> str:
    """librdkafka's message without the broker prefix and its timing suffix."""
    message = re.sub(r"^\S+://\S+/\S+: ", "", message)
    return re.sub(r" \(after \d+ms in state \w+\)$", "", message).strip()


def _login(security: KafkaSecurity) -> str:
    if security.sasl_username:
        source = security.sasl_password.source if security.sasl_password else "no password"
        return f"sasl_username {security.sasl_username!r} and its password ({source})"
    return f"the SASL settings ({security.sasl_mechanism})"


def _tls_hint(message: str, security: KafkaSecurity) -> str:
    if "certificate verify failed" in message:
        where = security.ssl_ca_location or "the system's CA store (no ssl_ca_location)"
        return f"the broker's certificate is not signed by a CA in {where}"
    if "bad certificate" in message or "certificate required" in message or "unknown ca" in message:
        return "the broker did not accept the client certificate (ssl_certificate_location)"
    if "PLAINTEXT" in message:
        return "that listener does not speak TLS: check security_protocol and the port"
    return "check ssl_ca_location, ssl_certificate_location and ssl_key_location"
