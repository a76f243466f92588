"""`swingdb serve` through the Arrow Flight SQL JDBC driver (Maven Central's
org.apache.arrow:flight-sql-jdbc-driver, fetched by `make jars`), as JDBC
tools such as DBeaver use it: prepared statements with parameters, and the
metadata calls they browse with (tables, columns, keys). The client is
tests/jdbc/FlightSqlJdbcCheck.java, compiled here with the machine's javac."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import FLIGHT_TOKEN

JARS = Path(os.environ.get("SWINGDB_JARS", Path.home() / ".cache" / "swingdb-jars"))
DRIVER = JARS / "flight-sql-jdbc-driver-18.1.0.jar"
SOURCE = Path(__file__).parent / "jdbc" / "FlightSqlJdbcCheck.java"
# Arrow's Java memory needs these on Java 17.
JAVA_OPTIONS = ["--add-opens=java.base/java.nio=ALL-UNNAMED"]


@pytest.fixture(scope="module")
def jdbc_client(tmp_path_factory):
    if not (shutil.which("java") and shutil.which("javac")):
        pytest.skip("no Java compiler (make debs installs openjdk-17-jdk-headless)")
    if not DRIVER.exists():
        pytest.skip(f"{DRIVER} is missing (make jars fetches it from Maven Central)")
    classes = tmp_path_factory.mktemp("jdbc")
    subprocess.run(["javac", "-d", str(classes), str(SOURCE)], check=True, capture_output=True, timeout=120)
    return classes


def test_a_jdbc_tool_prepares_binds_and_browses_the_server(flight_server, jdbc_client):
    address = flight_server().removeprefix("grpc://")
    url = f"jdbc:arrow-flight-sql://{address}/?useEncryption=false&token={FLIGHT_TOKEN}"
    run = subprocess.run(
        ["java", *JAVA_OPTIONS, "-cp", f"{jdbc_client}:{DRIVER}", "FlightSqlJdbcCheck", url],
        capture_output=True, text=True, timeout=180,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    found = dict(line.split("=", 1) for line in run.stdout.splitlines() if "=" in line)
    assert found["insert_parameters"] == "3", "the driver counts the parameters the server described"
    assert found["inserted"] == "3"
    assert found["query_parameters"] == "1"
    assert found["reused_statement"] == "300", "a Statement runs more queries than the prepared statements a client keeps"
    assert found["held_meanwhile"] == "grace", "what that leaves behind is closed before a statement the program holds"
    assert found["from_2"] == "grace@1990-01-02,o'neil@1990-01-03"
    assert found["from_3"] == "o'neil@1990-01-03", "the same prepared statement with a new value"
    assert found["bad_prepared"] == "named", "a wrong statement fails when prepared, naming what is missing"
    assert found["tables"] == "main.people"
    assert found["columns"] == "id,name,born"
    assert found["primary_keys"] == "id#1"
    assert found["product"] == "swingdb"
