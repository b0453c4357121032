"""The development PostgreSQL's cluster refuses what it cannot run, clearly.

Starting it is proven end to end by README command 1's test
(tests/system/servers/test_serve_command.py).
"""

import dj_database_url
import pytest

from surveys import embedded_postgres
from surveys.embedded_postgres import Cluster, EmbeddedPostgresError


def test_the_binaries_are_postgresql_of_the_major_compose_and_the_tests_run():
    assert (embedded_postgres.binaries() / "postgres").is_file()
    compose = embedded_postgres.DEFAULT_DIRECTORY.parent.parent / "docker-compose.yml"
    assert f"image: postgres:{embedded_postgres.MAJOR}-" in compose.read_text()


def test_database_url_names_the_clusters_socket_directory(tmp_path):
    directory = tmp_path / "a dir with spaces"
    parsed = dj_database_url.parse(embedded_postgres.database_url(directory))
    assert (parsed["HOST"], parsed["NAME"], parsed["USER"]) == (
        str(directory),
        "deniable",
        "postgres",
    )


def test_a_directory_too_deep_for_a_unix_socket_is_refused_before_anything_is_made(
    tmp_path,
):
    deep = tmp_path / ("d" * 100)
    with pytest.raises(EmbeddedPostgresError, match="too long for a Unix socket"):
        Cluster(deep).initialize()
    assert not deep.exists()


def test_a_cluster_of_another_major_version_is_refused(tmp_path):
    cluster = Cluster(tmp_path)
    cluster.data.mkdir()
    (cluster.data / "PG_VERSION").write_text("15\n")
    with pytest.raises(EmbeddedPostgresError, match="PostgreSQL 15, not 16"):
        cluster.initialized()
