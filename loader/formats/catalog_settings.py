"""The settings that reach an Iceberg REST catalog and the object store of its tables, as a user gives
them: flags, `LOADER_*` variables and the config file, declared here once (`loader.setting_fields`) and
made into a `CatalogAccess` by `take_catalog`. The catalog's kind is the loader's `iceberg-catalog`.

No flag takes a secret (the process list shows every flag to every user of the machine): the REST
catalog's OAuth2 client credentials or token and the store's keys are read from a file a setting names, or
from an environment variable.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from loader.formats.iceberg_catalogs import DEFAULT_REST_TIMEOUT_S, CatalogAccess, ObjectStore
from loader.reading.security_settings import client_properties
from loader.setting_fields import Setting, declared
from pipeline_client.secret_values import one_secret

CREDENTIAL_VARIABLE = "LOADER_ICEBERG_REST_CREDENTIAL"
TOKEN_VARIABLE = "LOADER_ICEBERG_REST_TOKEN"
ACCESS_KEY_VARIABLE = "LOADER_S3_ACCESS_KEY_ID"
SECRET_KEY_VARIABLE = "LOADER_S3_SECRET_ACCESS_KEY"


@dataclass(frozen=True)
class CatalogInputs:
    """The REST catalog's and the object store's settings (none of them takes a secret)."""

    iceberg_rest_uri: Annotated[
        str | None, Setting("iceberg-catalog = rest: the catalog's URI, http(s)://host:port[/path].")
    ] = None
    iceberg_rest_warehouse: Annotated[
        str | None,
        Setting(
            "iceberg-catalog = rest: the warehouse the catalog serves the tables from, its name or location "
            "as the catalog wants it.",
            shown_default="the catalog's default",
        ),
    ] = None
    iceberg_rest_credential_file: Annotated[
        str | None,
        Setting(
            "A file holding the REST catalog's OAuth2 client credentials, client_id:client_secret (or set "
            f"{CREDENTIAL_VARIABLE}).",
            file=True,
        ),
    ] = None
    iceberg_rest_token_file: Annotated[
        str | None,
        Setting(f"A file holding a bearer token for the REST catalog (or set {TOKEN_VARIABLE}).", file=True),
    ] = None
    iceberg_rest_oauth2_server_uri: Annotated[
        str | None,
        Setting(
            "The OAuth2 token endpoint, when it is not the REST catalog's own.",
            shown_default="the catalog's /v1/oauth/tokens",
        ),
    ] = None
    iceberg_rest_scope: Annotated[
        str | None, Setting("The OAuth2 scope asked for (Polaris: PRINCIPAL_ROLE:ALL, or one role).")
    ] = None
    iceberg_rest_timeout_seconds: Annotated[
        float | None,
        Setting(
            "How long the loader waits for the REST catalog's answer to one request before it gives up "
            "(a catalog that hangs, or whose store went away, fails the run instead of holding it).",
            shown_default=f"{DEFAULT_REST_TIMEOUT_S:g}",
        ),
    ] = None
    iceberg_vended_credentials: Annotated[
        bool,
        Setting(
            "Ask the REST catalog for short-lived storage credentials with each table it hands out, instead "
            "of giving the loader keys of the store."
        ),
    ] = False
    s3_endpoint: Annotated[
        str | None,
        Setting(
            "Iceberg tables on an S3-compatible store: its endpoint (MinIO, Ceph, a cloud's own).",
            shown_default="AWS S3",
        ),
    ] = None
    s3_region: Annotated[str | None, Setting("The object store's region.")] = None
    s3_path_style: Annotated[
        bool, Setting("Address the store as http://host/bucket/key (most S3-compatible stores want it).")
    ] = False
    s3_access_key_file: Annotated[
        str | None,
        Setting(
            f"A file holding the store's access key id (or set {ACCESS_KEY_VARIABLE}); without keys, the "
            "AWS SDK's own chain or the catalog's vended credentials.",
            file=True,
        ),
    ] = None
    s3_secret_key_file: Annotated[
        str | None,
        Setting(f"A file holding the store's secret access key (or set {SECRET_KEY_VARIABLE}).", file=True),
    ] = None
    iceberg: Annotated[
        dict[str, Any],
        Setting(
            "Any other property of Iceberg's catalog, in Iceberg's names (rest.sigv4-enabled, ...; see "
            '"Iceberg catalogs and object stores").',
            flag=False,
        ),
    ] = field(default_factory=dict)


CONFIG_KEYS = tuple(setting.name for setting in declared(CatalogInputs))


def take_catalog(values: dict[str, Any], environ: Mapping[str, str] | None = None) -> CatalogAccess:
    """Removes the catalog and store keys from `values` (config file and flags merged) and returns what
    they describe, with secrets read; raises `ValueError` naming a setting that cannot be used."""
    env = os.environ if environ is None else environ
    given = CatalogInputs(**{key: values.pop(key) for key in CONFIG_KEYS if values.get(key) is not None})
    access_key = one_secret(
        "the object store's access key", given.s3_access_key_file, ACCESS_KEY_VARIABLE, env
    )
    secret_key = one_secret(
        "the object store's secret key", given.s3_secret_key_file, SECRET_KEY_VARIABLE, env
    )
    store = None
    if given.s3_endpoint or given.s3_region or given.s3_path_style or access_key or secret_key:
        store = ObjectStore(given.s3_endpoint, given.s3_region, given.s3_path_style, access_key, secret_key)
    return CatalogAccess(
        uri=given.iceberg_rest_uri,
        warehouse=given.iceberg_rest_warehouse,
        credential=one_secret(
            "the REST catalog's client credentials",
            given.iceberg_rest_credential_file,
            CREDENTIAL_VARIABLE,
            env,
        ),
        token=one_secret("the REST catalog's token", given.iceberg_rest_token_file, TOKEN_VARIABLE, env),
        oauth2_server_uri=given.iceberg_rest_oauth2_server_uri,
        scope=given.iceberg_rest_scope,
        timeout_s=given.iceberg_rest_timeout_seconds,
        vended_credentials=given.iceberg_vended_credentials,
        object_store=store,
        properties=client_properties(given.iceberg, "iceberg", env),
    )
