"""Pipes across hosts (seed 004, PipeGen, over a network): a table moved from
swingdb on one host to swingdb on another, against the paper's baseline (export
CSV to a file, copy the file across, import it). The two hosts are network
namespaces joined by a veth pair that this benchmark makes (root needed), with
a bandwidth limit (tc tbf, --rate) or none, and latency where the kernel has
netem (--delay). Each figure is the median of --runs runs from "go" to both
processes done; the raw TCP figure is the link's own throughput (one stream,
bytes from memory to memory). Four workers also run with zstd compression and
over TLS (the exporter's certificate signed by an authority the importer trusts).

    python -m bench pipes-net [--quick] [--rows N] [--rate 1gbit,none] [--delay 20ms] [--runs R]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid

from .common import ROOT, machine, report_target
from .flight_sql import certificates
from .netns import Link, unavailable
from .pipes import run_pair
from .report import replace_section, table

# The paper's synthetic table: a key and three (integer, double) pairs.
CREATE = """
con.sql(f'''CREATE TABLE t AS SELECT value AS k,
       cast(value % 1000 AS INT) AS a1, random() AS b1,
       cast(value % 77 AS INT) AS a2, random() * 100 AS b2,
       cast(value / 3 AS INT) AS a3, cast(value AS DOUBLE) / 7 AS b3
    FROM range({ARGS["rows"]})''')
"""

FLIGHT_EXPORT = """
import swingdb
con = swingdb.connect()
""" + CREATE + """
ready()
rows = con.sql("COPY t TO '" + ARGS["export_url"] + "'").fetchall()[0][0]
done(rows=rows)
"""

FLIGHT_IMPORT = """
import swingdb
con = swingdb.connect()
ready()
con.sql("CREATE TABLE t AS SELECT * FROM '" + ARGS["import_url"] + "'")
done(rows=con.sql("SELECT count(*) FROM t").fetchall()[0][0])
"""

CONNECT_B = """
import socket
def connect_b():
    # The receiving side listens once it is ready; the sender may be first.
    for _ in range(200):
        try:
            return socket.create_connection((ARGS["addr_b"], ARGS["port"]))
        except ConnectionRefusedError:
            time.sleep(0.05)
    raise RuntimeError("the receiving side does not listen")
"""

CSV_EXPORT_SEND = CONNECT_B + """
import swingdb
con = swingdb.connect()
""" + CREATE + """
ready()
con.sql(f"COPY t TO '{ARGS['csv_a']}' (FORMAT csv)")
with connect_b() as s, open(ARGS["csv_a"], "rb") as f:
    s.sendfile(f)
os.remove(ARGS["csv_a"])
done()
"""

CSV_RECEIVE_IMPORT = """
import socket, swingdb
server = socket.create_server((ARGS["addr_b"], ARGS["port"]))
con = swingdb.connect()
ready()
peer, _ = server.accept()
with open(ARGS["csv_b"], "wb") as f:
    while chunk := peer.recv(1 << 20):
        f.write(chunk)
con.sql(f"CREATE TABLE t AS SELECT * FROM read_csv('{ARGS['csv_b']}')")
os.remove(ARGS["csv_b"])
done(rows=con.sql("SELECT count(*) FROM t").fetchall()[0][0])
"""

RAW_SEND = CONNECT_B + """
block = bytes(16 << 20)
ready()
with connect_b() as s:
    for _ in range(ARGS["blocks"]):
        s.sendall(block)
done()
"""

RAW_RECEIVE = """
import socket
server = socket.create_server((ARGS["addr_b"], ARGS["port"]))
buffer = bytearray(1 << 20)
ready()
peer, _ = server.accept()
got = 0
while n := peer.recv_into(buffer):
    got += n
done(rows=got)
"""

# Arrow bytes of the synthetic table per row: an 8-byte key, three 4-byte and three 8-byte columns.
ROW_BYTES = 8 + 3 * 4 + 3 * 8


def measure(link: Link, label: str, method: str, export: str, import_: str, args: dict, runs: int) -> dict:
    results = []
    for _ in range(runs):
        port = 7500 + uuid.uuid4().int % 1000
        url = f"db://{link.addr_a}:{port}/bench-{uuid.uuid4().hex[:8]}"
        # Both ends take `options`; TLS gives each its own (the exporter's certificate, the importer's authority).
        run_args = {**args, "export_url": url + args.get("options", "") + args.get("export_options", ""),
                    "import_url": url + args.get("options", "") + args.get("import_options", ""),
                    "port": port, "addr_b": link.addr_b}
        prefixes = (("ip", "netns", "exec", link.a), ("ip", "netns", "exec", link.b))
        results.append(run_pair(export, import_, run_args, prefixes))
    seconds = statistics.median(r["seconds"] for r in results)
    payload = args["blocks"] * (16 << 20) if "blocks" in args else args["rows"] * ROW_BYTES
    row = {
        "link": label,
        "method": method,
        "seconds": round(seconds, 3),
        "mb_per_s": round(payload / seconds / 1e6),
        "runs": ", ".join(f"{r['seconds']:.2f}" for r in results),
        "export_rss_mb": round(max(r["export_rss_mb"] for r in results)),
        "import_rss_mb": round(max(r["import_rss_mb"] for r in results)),
    }
    print(f"  {label:24} {method:34} {seconds:8.3f} s {row['mb_per_s']:6} MB/s", flush=True)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=5_000_000, help="rows of the synthetic table")
    parser.add_argument("--rate", default="1gbit,none", help="link rates to measure (tc syntax; none: no limit)")
    parser.add_argument("--delay", default="20ms", help="one-way latency where netem exists (0: none)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="10^6 rows, one run; report to bench/results/")
    parser.add_argument("--work", default=os.path.join(ROOT, "bench", "data"))
    args = parser.parse_args()
    if args.quick:
        args.rows, args.runs = 1_000_000, 1
    if why := unavailable():
        print(f"pipes-net: skipped: {why}")
        return
    os.makedirs(args.work, exist_ok=True)
    # Both sides share a token, as users' processes would (from the environment).
    os.environ["SWINGDB_TOKEN"] = uuid.uuid4().hex
    doc, img = report_target(args.quick)
    netem_missing = Link.netem_missing() if args.delay not in ("0", "") else "no latency asked for"
    links = [(rate, None) for rate in args.rate.split(",")]
    if not netem_missing:
        links += [(rate, args.delay) for rate in args.rate.split(",")]
    scratch = tempfile.mkdtemp(prefix="swingdb-bench-pipes-net-", dir=args.work)
    rows = []
    try:
        for rate, delay in links:
            label = f"{'unlimited' if rate == 'none' else rate}" + (f", {delay} each way" if delay else "")
            with Link(rate=None if rate == "none" else rate, delay=delay) as link:
                base = {"rows": args.rows, "csv_a": os.path.join(scratch, "a.csv"), "csv_b": os.path.join(scratch, "b.csv")}
                m = lambda method, e, i, **extra: rows.append(measure(link, label, method, e, i, {**base, **extra}, args.runs))  # noqa: E731
                m("raw TCP, one stream (the link)", RAW_SEND, RAW_RECEIVE, blocks=max(1, args.rows * ROW_BYTES // (16 << 20)))
                m("CSV: export, copy, import", CSV_EXPORT_SEND, CSV_RECEIVE_IMPORT)
                for workers in (1, 2, 4, 8):
                    m(f"Flight pipe, {workers} worker{'s' if workers > 1 else ''}", FLIGHT_EXPORT, FLIGHT_IMPORT,
                      options=f"?workers={workers}")
                m("Flight pipe, 4 workers, zstd", FLIGHT_EXPORT, FLIGHT_IMPORT, options="?workers=4&compression=zstd")
                tls = certificates(tempfile.mkdtemp(dir=scratch), ip=link.addr_a)
                m("Flight pipe, 4 workers, TLS", FLIGHT_EXPORT, FLIGHT_IMPORT, options="?workers=4",
                  export_options=f"&tls_cert={tls}/server.pem&tls_key={tls}/server.key", import_options=f"&tls_ca={tls}/ca.pem")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    write_report(args, rows, doc, img, netem_missing)


def write_report(args, rows: list[dict], doc: str, img: str, netem_missing: str | None) -> None:
    info = machine()
    lines = [
        "## Pipes across hosts (`python -m bench pipes-net`)",
        "",
        f"Measured {time.strftime('%Y-%m-%d')} on {info['cpu']}, {info['cores']} cores, {info['memory_gib']} GiB; "
        f"swingdb {info['swingdb']}. Two network namespaces joined by a veth pair on this machine (both hosts "
        f"share its {info['cores']} cores). Synthetic table of {args.rows:,} rows (seed 004's schema, "
        f"{args.rows * ROW_BYTES / 1e6:.0f} MB of Arrow data); MB/s is those bytes over the time. "
        f"Median of {args.runs} run(s) from go to both processes done. \"vs CSV\": the CSV time on the same link "
        "divided by this one; \"of link\": this throughput over the raw TCP stream's."
        + (f" Latency rows are missing: {netem_missing}." if netem_missing else "")
        + f" `python -m bench pipes-net {' '.join(sys.argv[1:])}`.",
        "",
    ]
    for label in dict.fromkeys(r["link"] for r in rows):
        mine = [r for r in rows if r["link"] == label]
        csv_time = next(r["seconds"] for r in mine if r["method"].startswith("CSV"))
        raw = next(r["mb_per_s"] for r in mine if r["method"].startswith("raw"))
        cells = [
            [r["method"], f"{r['seconds']:.3f}", r["mb_per_s"],
             "" if r["method"].startswith("raw") else f"{csv_time / r['seconds']:.1f}x",
             f"{100 * r['mb_per_s'] / raw:.0f} %", r["export_rss_mb"], r["import_rss_mb"], r["runs"]]
            for r in mine
        ]
        lines += ["", f"### Link: {label}", ""]
        lines.append(table(["method", "seconds", "MB/s", "vs CSV", "of link", "export RSS MB", "import RSS MB", "runs"], cells, right=2))
    path = os.path.join(img, "pipes-net.png")
    plot(rows, path)
    lines += ["", f"![pipes across hosts](img/{os.path.basename(path)})", ""]
    replace_section(doc, "pipes-net", "\n".join(lines))


def plot(rows: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    links = list(dict.fromkeys(r["link"] for r in rows))
    fig, axes = plt.subplots(1, len(links), figsize=(5.5 * len(links), 3.2), squeeze=False)
    for ax, label in zip(axes[0], links):
        mine = [r for r in rows if r["link"] == label]
        colors = ["#999999" if r["method"].startswith("raw") else "#d62728" if r["method"].startswith("CSV") else "#1f77b4" for r in mine]
        ax.barh(range(len(mine)), [r["mb_per_s"] for r in mine], color=colors)
        ax.set_yticks(range(len(mine)), [r["method"] for r in mine], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("MB/s of Arrow data (higher is better)")
        ax.set_title(f"link: {label}", fontsize=9)
    fig.suptitle("swingdb -> swingdb across hosts: grey the link, red CSV, blue Flight pipes", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


if __name__ == "__main__":
    main()
