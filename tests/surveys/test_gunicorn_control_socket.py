"""Gunicorn's control socket is off unless GUNICORN_CONTROL_SOCKET names one of
the instance's own (its default path is shared by every instance of a user)."""

from __future__ import annotations

import runpy

from gunicorn.config import Config

from tests.conftest import ROOT


def gunicorn_config(monkeypatch, socket: str | None) -> Config:
    """Gunicorn's settings after reading gunicorn.conf.py."""
    if socket is None:
        monkeypatch.delenv("GUNICORN_CONTROL_SOCKET", raising=False)
    else:
        monkeypatch.setenv("GUNICORN_CONTROL_SOCKET", socket)
    config = Config()
    for name, value in runpy.run_path(str(ROOT / "gunicorn.conf.py")).items():
        if name in config.settings:
            config.set(name, value)
    return config


def test_the_control_socket_is_off_by_default(monkeypatch):
    assert gunicorn_config(monkeypatch, None).control_socket_disable is True


def test_gunicorn_control_socket_names_the_instances_own_socket(monkeypatch, tmp_path):
    config = gunicorn_config(monkeypatch, str(tmp_path / "web.ctl"))
    assert config.control_socket_disable is False
    assert config.control_socket == str(tmp_path / "web.ctl")
