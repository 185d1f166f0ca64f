"""Production serving: gunicorn (pre-fork workers) running the Flask app, never Flask's dev server.

The database is migrated once in the master before workers start; each worker then builds its own app
(engines must not cross a fork), so ``--workers N`` gives N independent processes sharing the database.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from flask import Flask
from gunicorn import glogging
from gunicorn.app.base import BaseApplication

from registry.api import create_app
from registry.config import RegistryConfig
from registry.observability import logs, metrics
from registry.server_tls import ServerTls


class RegistryServer(BaseApplication):  # type: ignore[misc]
    """A gunicorn application configured from code instead of a config file."""

    def __init__(self, cfg: RegistryConfig, options: dict[str, Any]) -> None:
        self.cfg_registry = replace(cfg, auto_upgrade=False)
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            if key in self.cfg.settings and value is not None:
                self.cfg.set(key, value)

    def load(self) -> Flask:
        logs.configure(self.cfg_registry.log_format)
        return create_app(self.cfg_registry)


class JsonGunicornLogger(glogging.Logger):  # type: ignore[misc]
    """gunicorn's own lines (start, workers booting, timeouts) as JSON too, so that with ``--log-format
    json`` the log stays one JSON object per line and a shipper never meets a line it cannot parse."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        for handler in self.error_log.handlers:
            handler.setFormatter(logs.JsonFormatter())


def gunicorn_options(
    host: str, port: int, workers: int, threads: int, log_level: str = "info", log_format: str = "text"
) -> dict[str, Any]:
    """Worker settings: threaded workers keep connections alive, which load generators and clients use."""
    return {
        "bind": f"{host}:{port}",
        "workers": workers,
        "threads": threads,
        "worker_class": "gthread" if threads > 1 else "sync",
        "keepalive": 5,
        # gunicorn answers over-long request lines itself (not with our JSON body): allow its maximum,
        # which fits any subject within max_subject_length even when fully percent-encoded.
        "limit_request_line": 8190,
        "timeout": 60,
        "graceful_timeout": 10,
        "accesslog": None,
        "errorlog": "-",
        "loglevel": log_level,
        "proc_name": "registry",
        # With several workers, metrics live in per-process files; a dead worker's gauges are dropped.
        "child_exit": _child_exit,
        "logger_class": JsonGunicornLogger if log_format == "json" else glogging.Logger,
    }


def _child_exit(_server: Any, worker: Any) -> None:
    metrics.worker_exited(worker.pid)


def serve(
    cfg: RegistryConfig, host: str, port: int, workers: int, threads: int, tls: ServerTls | None = None
) -> None:
    """Runs until SIGTERM/SIGINT (gunicorn stops workers gracefully); over HTTPS when ``tls`` is given."""
    options = gunicorn_options(host, port, workers, threads, log_format=cfg.log_format)
    if cfg.forwarded_allow_ips:  # gunicorn then believes X-Forwarded-Proto from the same proxies only
        options["forwarded_allow_ips"] = cfg.forwarded_allow_ips
    if tls is not None:
        options.update(tls.gunicorn_options())
    RegistryServer(cfg, options).run()


def wsgi() -> Flask:
    """For running under another WSGI server: ``gunicorn 'registry.server:wsgi()'`` (config from env)."""
    cfg = RegistryConfig.from_env()
    logs.configure(cfg.log_format)
    return create_app(cfg)
