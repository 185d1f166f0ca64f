"""The page's admin actions: a subject's compatibility level and mode (its own, or back to the global
ones), soft and then permanent deletes of a version after a confirmation page. Thin views over the
repository calls the API makes for the same changes (``PUT``/``DELETE /config/{s}``, ``PUT``/``DELETE
/mode/{s}``, ``DELETE /subjects/{s}/versions/{v}[?permanent=true]``).

Who may: with ``--auth``, users with the admin role only (the permission check refuses these POSTs to
anyone else, as for any route it does not know to read; the forms are not shown to them); without
authentication, everyone, as the API allows. Every POST must carry the page's CSRF token. Each action is
logged (logger ``registry.ui``) and told on the next page.
"""

from __future__ import annotations

import logging

from flask import Response, abort, current_app, g, redirect, render_template, request, url_for

from registry.service import bodies, errors
from registry.storage.repository import Registry
from registry.ui import csrf
from registry.ui.views import GLOBAL_CHOICE, bp, may_administer

log = logging.getLogger("registry.ui")


def _registry() -> Registry:
    return current_app.extensions["registry"]


def _who() -> str:
    principal = getattr(g, "principal", None)
    return principal.name if principal is not None else "anonymous (no --auth)"


def _checked() -> None:
    """Refuses a POST from someone who may not, or without this page's token (403 page)."""
    if not may_administer():
        abort(403, "Only an admin may change subjects.")
    if not csrf.valid_post(request):
        log.warning("page admin action refused: no valid CSRF token (%s %s)", request.method, request.path)
        abort(403, "The form was not sent by this registry's page (its CSRF token is missing or stale): "
                   "reload the page and try again.")  # fmt: skip


def _done(subject: str, message: str, ok: bool = True, version: int | None = None) -> Response:
    csrf.notice_for_next_page(("ok|" if ok else "error|") + message)
    target = url_for("ui.subject", subject=subject, version=version)
    return redirect(target, code=303)  # type: ignore[return-value]


@bp.post("/subjects/<subject:subject>/settings")
def change_settings(subject: str) -> Response:
    """The subject's own level and mode, as chosen in the form (unchanged ones are left alone)."""
    _checked()
    history = _registry().subject_history(subject)
    settings = history.settings
    level = request.form.get("compatibility", "").strip()
    mode = request.form.get("mode", "").strip()
    done = []
    try:
        if level == GLOBAL_CHOICE:
            if settings.compatibility_own:  # as `DELETE /config/{subject}`
                _registry().delete_config(subject)
                done.append(f"compatibility level {settings.compatibility} -> the global level")
        elif level and (level != settings.compatibility or not settings.compatibility_own):
            _registry().update_config(subject, bodies.config_update({"compatibility": level}))
            done.append(f"compatibility level {settings.compatibility} -> {level}")
        if mode == GLOBAL_CHOICE:
            if settings.mode_own:  # as `DELETE /mode/{subject}`
                _registry().delete_mode(subject)
                done.append(f"mode {settings.mode} -> the global mode")
        elif mode and (mode != settings.mode or not settings.mode_own):
            _registry().set_mode(subject, bodies.mode({"mode": mode}))
            done.append(f"mode {settings.mode} -> {mode}")
    except errors.RegistryError as exc:
        log.warning("page admin action failed: %s on subject %r by %s: %s", "settings", subject, _who(),
                    exc.message)  # fmt: skip
        return _done(subject, f"Not changed: {exc.message}", ok=False)
    if not done:
        return _done(subject, "Nothing to change: the level and mode were already those.")
    what = "; ".join(done)
    log.info("page admin action: subject %r %s, by %s", subject, what, _who())
    return _done(subject, f"Changed {subject}: {what}.")


@bp.get("/subjects/<subject:subject>/versions/<int:number>/delete")
def confirm_delete(subject: str, number: int) -> tuple[str, int]:
    """The confirmation step: what deleting this version will do (soft first, then permanent)."""
    if not may_administer():
        abort(403, "Only an admin may delete versions.")
    history = _registry().subject_history(subject)
    found = next((v for v in history.versions if v.version == number), None)
    if found is None:
        raise errors.VersionNotFound(f"Version {number} not found for subject '{subject}'.")
    users = _registry().referenced_by(subject, number)
    return render_template("ui/confirm_delete.html", history=history, version=found, users=users), 200


@bp.post("/subjects/<subject:subject>/versions/<int:number>/delete")
def delete_version(subject: str, number: int) -> Response:
    """Soft-deletes a live version, or permanently deletes a soft-deleted one, once confirmed."""
    _checked()
    permanent = request.form.get("permanent") == "true"
    if request.form.get("confirmed") != "yes":
        return redirect(url_for("ui.confirm_delete", subject=subject, number=number), code=303)  # type: ignore[return-value]
    how = "permanently deleted" if permanent else "soft-deleted"
    try:
        _registry().delete_version(subject, number, permanent)
    except errors.RegistryError as exc:
        log.warning("page admin action failed: delete version %s of %r (permanent=%s) by %s: %s",
                    number, subject, permanent, _who(), exc.message)  # fmt: skip
        return _done(subject, f"Version {number} not deleted: {exc.message}", ok=False)
    log.info("page admin action: subject %r version %s %s, by %s", subject, number, how, _who())
    try:
        _registry().subject_history(subject)
    except errors.RegistryError:  # its last version is gone for good: nothing left to show
        csrf.notice_for_next_page(
            f"ok|Version {number} of {subject} {how}; the subject has no versions left."
        )
        return redirect(url_for("ui.subjects"), code=303)  # type: ignore[return-value]
    return _done(subject, f"Version {number} of {subject} {how}.")


@bp.get("/subjects/<subject:subject>/delete")
def confirm_delete_subject(subject: str) -> tuple[str, int]:
    """The confirmation step of deleting a whole subject: soft first (its live versions), then, once
    every version is soft-deleted, permanent."""
    if not may_administer():
        abort(403, "Only an admin may delete subjects.")
    history = _registry().subject_history(subject)
    live = sum(1 for v in history.versions if not v.deleted)
    page = render_template("ui/confirm_delete_subject.html", history=history, live=live, permanent=live == 0)
    return page, 200


@bp.post("/subjects/<subject:subject>/delete")
def delete_subject(subject: str) -> Response:
    """Soft-deletes a subject's live versions, or permanently deletes a soft-deleted subject, once
    confirmed; the list of subjects says so."""
    _checked()
    permanent = request.form.get("permanent") == "true"
    if request.form.get("confirmed") != "yes":
        return redirect(url_for("ui.confirm_delete_subject", subject=subject), code=303)  # type: ignore[return-value]
    how = "permanently deleted" if permanent else "soft-deleted"
    try:
        versions = _registry().delete_subject(subject, permanent)
    except errors.RegistryError as exc:
        log.warning("page admin action failed: delete subject %r (permanent=%s) by %s: %s",
                    subject, permanent, _who(), exc.message)  # fmt: skip
        return _done(subject, f"{subject} not deleted: {exc.message}", ok=False)
    log.info("page admin action: subject %r %s (versions %s), by %s", subject, how, versions, _who())
    listed = f"version{'' if len(versions) == 1 else 's'} {', '.join(str(v) for v in versions)}"
    csrf.notice_for_next_page(f"ok|Subject {subject} {how} ({listed}).")
    return redirect(url_for("ui.subjects"), code=303)  # type: ignore[return-value]
