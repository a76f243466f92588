"""Two hosts on this machine: network namespaces joined by a veth pair, with a
bandwidth limit (tbf) and, where the kernel has netem, latency. Used by the
tests and the benchmark of pipes across hosts; needs root and `ip`/`tc`."""

import os
import shutil
import subprocess
import sys
import uuid


def unavailable():
    """Why namespaces cannot be made here, or None when they can."""
    if sys.platform != "linux":
        return "network namespaces are Linux's"
    if os.geteuid() != 0:
        return "creating network namespaces needs root"
    if not shutil.which("ip") or not shutil.which("tc"):
        return "`ip` and `tc` (iproute2) are not installed"
    probe = f"swprobe-{uuid.uuid4().hex[:6]}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"`ip netns add` is not allowed here: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


class Link:
    """Hosts `a` and `b` (namespaces) joined by one link of `rate` (tc's
    syntax, e.g. "200mbit") with `delay` each way (e.g. "20ms"; needs netem).
    `a` has address `addr_a`, `b` has `addr_b`."""

    def __init__(self, rate=None, delay=None):
        tag = uuid.uuid4().hex[:6]
        self.a, self.b = f"swa-{tag}", f"swb-{tag}"
        subnet = int(tag[:2], 16) % 250 + 1
        self.addr_a, self.addr_b = f"10.231.{subnet}.1", f"10.231.{subnet}.2"
        self.dev_a, self.dev_b = f"va{tag}", f"vb{tag}"
        try:
            self._ip("netns", "add", self.a)
            self._ip("netns", "add", self.b)
            self._ip("link", "add", self.dev_a, "type", "veth", "peer", "name", self.dev_b)
            for ns, dev, addr in ((self.a, self.dev_a, self.addr_a), (self.b, self.dev_b, self.addr_b)):
                self._ip("link", "set", dev, "netns", ns)
                self._ip("-n", ns, "addr", "add", f"{addr}/24", "dev", dev)
                self._ip("-n", ns, "link", "set", dev, "up")
                self._ip("-n", ns, "link", "set", "lo", "up")
                self._shape(ns, dev, rate, delay)
        except BaseException:
            self.close()
            raise

    @staticmethod
    def netem_missing():
        """Why latency cannot be added here, or None."""
        probe = Link()
        try:
            shaped = subprocess.run(
                ["tc", "-n", probe.a, "qdisc", "add", "dev", probe.dev_a, "root", "netem", "delay", "1ms"],
                capture_output=True, text=True,
            )
            return None if shaped.returncode == 0 else f"this kernel has no netem qdisc ({shaped.stderr.strip().rstrip('.')})"
        finally:
            probe.close()

    def _ip(self, *args):
        subprocess.run(["ip", *args], check=True, capture_output=True)

    def _shape(self, ns, dev, rate, delay):
        if delay:
            netem = ["netem", "delay", delay] + (["rate", rate] if rate else []) + ["limit", "100000"]
            subprocess.run(["tc", "-n", ns, "qdisc", "add", "dev", dev, "root", *netem], check=True, capture_output=True)
        elif rate:
            tbf = ["tbf", "rate", rate, "burst", "256kb", "latency", "100ms"]
            subprocess.run(["tc", "-n", ns, "qdisc", "add", "dev", dev, "root", *tbf], check=True, capture_output=True)

    def run(self, ns, argv, **kwargs):
        """Starts `argv` inside namespace `ns` (a Popen)."""
        return subprocess.Popen(["ip", "netns", "exec", ns, *argv], **kwargs)

    def cut(self):
        """Takes the link down (a network cut)."""
        self._ip("-n", self.b, "link", "set", self.dev_b, "down")

    def close(self):
        for ns in (self.a, self.b):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
